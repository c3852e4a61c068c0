import { Aws } from 'aws-cdk-lib';
import { CfnNamedQuery, CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct, type IDependable } from 'constructs';
import { TOKEN_DIGEST_PLACEHOLDER, tokenLookupSql } from '../../lib/analytics/query/tokenLookup.ts';
import { DT_PROJECTION_RANGE } from '../../lib/archive/config/tableNames.ts';
import { HISTORY_COLUMNS } from '../../lib/archive/parquet/historySchema.ts';
import { PREFIX } from './archiveBuckets.ts';

export interface HistoryCatalogProps {
  archive: IBucket;
  athenaResults: IBucket;
}

export const DATABASE_NAME = 'tunnel_archive';
export const TABLE_NAME = 'tunnel_sessions';
export const WORKGROUP_NAME = 'tunnel-archiver';

/** A Glue table (or view) in the archive's database. */
export function glueTable(scope: Construct, id: string, tableInput: CfnTable.TableInputProperty): CfnTable {
  return new CfnTable(scope, id, { catalogId: Aws.ACCOUNT_ID, databaseName: DATABASE_NAME, tableInput });
}

/**
 * The Glue table input of a Parquet dataset at `location`, partitioned by `dt` (projected; see
 * `historyTableParameters`), Hive Parquet SerDe: history, active and findings share it.
 */
export function parquetTableInput(
  name: string,
  description: string,
  location: string,
  columns: readonly { name: string; athenaType: string }[],
  dtComment: string,
): CfnTable.TableInputProperty {
  return {
    name,
    description,
    tableType: 'EXTERNAL_TABLE',
    parameters: historyTableParameters(location),
    partitionKeys: [{ name: 'dt', type: 'string', comment: dtComment }],
    storageDescriptor: {
      location,
      columns: columns.map((c) => ({ name: c.name, type: c.athenaType })),
      inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      serdeInfo: {
        serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
        parameters: { 'serialization.format': '1' },
      },
    },
  };
}

/** A Parquet dataset under `prefix` of the archive bucket, as its Glue table describes it. */
export interface ParquetTableSpec {
  name: string;
  columns: readonly { name: string; athenaType: string }[];
  prefix: string;
  description: string;
  /** What `dt` is for this dataset. */
  dtComment: string;
}

/** The Glue table of a Parquet dataset in `bucket` (see {@link parquetTableInput}), created after `after`. */
export function parquetGlueTable(
  scope: Construct,
  id: string,
  bucket: Pick<IBucket, 'bucketName'>,
  after: IDependable,
  spec: ParquetTableSpec,
): CfnTable {
  const location = `s3://${bucket.bucketName}/${spec.prefix}`;
  const table = glueTable(
    scope,
    id,
    parquetTableInput(spec.name, spec.description, location, spec.columns, spec.dtComment),
  );
  table.node.addDependency(after);
  return table;
}

/**
 * Table parameters: Parquet, and `dt` projected (no crawler, no MSCK REPAIR) so a partition written
 * this morning is queryable at once. The range covers every day a record can have (`DT_RANGE`).
 */
export function historyTableParameters(location: string): Record<string, string> {
  return {
    EXTERNAL: 'TRUE',
    classification: 'parquet',
    'projection.enabled': 'true',
    'projection.dt.type': 'date',
    'projection.dt.format': 'yyyy-MM-dd',
    'projection.dt.range': DT_PROJECTION_RANGE,
    'projection.dt.interval': '1',
    'projection.dt.interval.unit': 'DAYS',
    'storage.location.template': `${location}dt=\${dt}/`,
  };
}

/** The saved example queries, by name; `${db}.${table}` is the archive table. */
export function exampleQueries(table: string): { name: string; description: string; query: string }[] {
  return [
    {
      name: 'Sessions per day',
      description: 'Tunnel sessions started per day, newest first',
      query: `SELECT dt, count(*) AS sessions, count(DISTINCT user_email) AS users\nFROM ${table}\nGROUP BY dt\nORDER BY dt DESC\nLIMIT 100;`,
    },
    {
      name: 'Sessions by mode',
      description: 'Sessions and total hours per tunnel mode over the last 30 days',
      query: `SELECT mode, count(*) AS sessions,\n  round(sum(date_diff('second', start_time, coalesce(end_time, start_time))) / 3600.0, 1) AS hours\nFROM ${table}\nWHERE dt >= date_format(current_date - interval '30' day, '%Y-%m-%d')\nGROUP BY mode\nORDER BY sessions DESC;`,
    },
    {
      name: "A token's sessions",
      description:
        'Every session of one token, by its digest alone: `tunnel-archiver token-hmac --token-key-secret <TokenKeySecretArn>` computes it on your machine; see docs/data-contract.md',
      query: `-- ${TOKEN_DIGEST_PLACEHOLDER}: what \`tunnel-archiver token-hmac\` prints (the token and the key never go into a query)\n${tokenLookupSql(table, TOKEN_DIGEST_PLACEHOLDER)}`,
    },
    {
      name: 'Last 7 days',
      description: 'Every session of the last 7 days',
      query: `SELECT *\nFROM ${table}\nWHERE dt >= date_format(current_date - interval '7' day, '%Y-%m-%d')\nORDER BY start_time DESC\nLIMIT 1000;`,
    },
  ];
}

/** Glue database and table over `history/` (columns from the Parquet contract), an Athena workgroup and saved queries. */
export class HistoryCatalog extends Construct {
  readonly database: CfnDatabase;
  readonly table: CfnTable;
  readonly workgroup: CfnWorkGroup;

  constructor(scope: Construct, id: string, props: HistoryCatalogProps) {
    super(scope, id);
    this.database = new CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: DATABASE_NAME, description: 'Pinggy tunnel-session archive (tunnel-archiver)' },
    });

    this.table = parquetGlueTable(this, 'Table', props.archive, this.database, {
      name: TABLE_NAME,
      columns: HISTORY_COLUMNS,
      prefix: PREFIX.history,
      description: 'One row per tunnel session; dt = UTC day the session started',
      dtComment: 'UTC day the session started, YYYY-MM-DD',
    });

    this.workgroup = new CfnWorkGroup(this, 'WorkGroup', {
      name: WORKGROUP_NAME,
      description: 'Queries over the tunnel-session archive',
      state: 'ENABLED',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        resultConfiguration: {
          outputLocation: `s3://${props.athenaResults.bucketName}/results/`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
        engineVersion: { selectedEngineVersion: 'AUTO' },
      },
    });

    for (const [i, q] of exampleQueries(`${DATABASE_NAME}.${TABLE_NAME}`).entries()) {
      const named = new CfnNamedQuery(this, `Query${i}`, {
        name: q.name,
        description: q.description,
        database: DATABASE_NAME,
        workGroup: WORKGROUP_NAME,
        queryString: q.query,
      });
      named.node.addDependency(this.workgroup, this.database);
    }
  }
}
