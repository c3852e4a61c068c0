import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { ResultWriter, S3JsonItemReader } from 'aws-cdk-lib/aws-stepfunctions';

/**
 * A Distributed Map's result writer whose grant is its own prefix only. CDK's grants the state machine's
 * role read and write on every object of the bucket (`<bucket>/*`); this one grants the same actions on
 * `<prefix>/*`, where the map writes its manifest and result files (`<prefix>/<map run id>/…`).
 */
export class ScopedResultWriter extends ResultWriter {
  readonly #bucket: IBucket;
  readonly #prefix: string;

  constructor(props: { bucket: IBucket; prefix: string }) {
    super(props);
    this.#bucket = props.bucket;
    this.#prefix = props.prefix.replace(/\/+$/, '');
  }

  override providePolicyStatements(): PolicyStatement[] {
    return [
      new PolicyStatement({
        sid: 'MapResultsOnly',
        effect: Effect.ALLOW,
        actions: ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
        resources: [this.#bucket.arnForObjects(`${this.#prefix}/*`)],
      }),
    ];
  }
}

/**
 * A Distributed Map's JSON item reader whose grant is the item files alone: GetObject on the keys matching
 * `itemsKeys` (a pattern such as `_staging/fanout/*\/items.json`), where CDK grants every object of the
 * bucket when the key is a JSON path.
 */
export class ScopedJsonItemReader extends S3JsonItemReader {
  readonly #bucket: IBucket;
  readonly #itemsKeys: string;

  constructor(props: { bucket: IBucket; key: string; itemsKeys: string }) {
    super({ bucket: props.bucket, key: props.key });
    this.#bucket = props.bucket;
    this.#itemsKeys = props.itemsKeys;
  }

  override providePolicyStatements(): PolicyStatement[] {
    return [
      new PolicyStatement({
        sid: 'MapItemsOnly',
        effect: Effect.ALLOW,
        actions: ['s3:GetObject'],
        resources: [this.#bucket.arnForObjects(this.#itemsKeys)],
      }),
    ];
  }
}
