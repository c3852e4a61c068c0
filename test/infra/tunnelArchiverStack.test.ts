import { readFileSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { iamStatements, propsOf, resourceSuffix, synthApp } from '../../devkit/infra/testApp.ts';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/telemetryNames.ts';
import { NONCURRENT_EXPIRY_PREFIXES, VERIFY_JOB_DAYS } from '../../infra/constructs/archiveBuckets.ts';
import { ENGINE_MEMORY_MIB, FULL_VCPU_MEMORY_MB } from '../../infra/constructs/archiveFunction.ts';
import { VERIFY_JOB_MAP_RESULTS_PREFIX } from '../../infra/constructs/verifyJob.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { HISTORY_COLUMNS } from '../../lib/archive/parquet/historySchema.ts';
import { ACTIVE_CHUNK_PREFIX } from '../../lib/archive/state/activeChunks.ts';
import { verifyJobKeys } from '../../lib/integrity/verify/verifyJobTypes.ts';

const { stack, template } = synthApp();
const ref = (construct: { node: { defaultChild?: unknown } }) => ({
  Ref: stack.getLogicalId(construct.node.defaultChild as never),
});
const archiveBucket = ref(stack.buckets.archive);

describe('TunnelArchiverStack', () => {
  it("runs the fan-out's map at the concurrency README and docs/fanout.md quote", () => {
    const fanout =
      template.toJSON().Resources[stack.getLogicalId(stack.fanout.stateMachine.node.defaultChild as never)];
    const definition = JSON.stringify(fanout.Properties.DefinitionString);
    const deployed = [...definition.matchAll(/MaxConcurrency\\":(\d+)/g)].map((m) => Number(m[1]));
    expect(deployed).toHaveLength(1);
    const doc = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
    expect(doc('docs/fanout.md')).toContain(`The stack deploys \`fanoutConcurrency\` **${deployed[0]}**`);
    expect(doc('README.md').replace(/\s+/g, ' ')).toContain(`at the stack's **${deployed[0]}** workers`);
  });

  describe('buckets', () => {
    it('blocks public access, encrypts and enforces TLS on every bucket', () => {
      const buckets = template.findResources('AWS::S3::Bucket');
      expect(Object.keys(buckets)).toHaveLength(3);
      for (const b of Object.values(buckets)) {
        expect(b.Properties.PublicAccessBlockConfiguration).toEqual({
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        });
        expect(
          b.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault,
        ).toEqual({
          SSEAlgorithm: 'AES256',
        });
      }
      const policies = Object.values(template.findResources('AWS::S3::BucketPolicy'));
      expect(policies).toHaveLength(3);
      for (const p of policies) {
        expect(p.Properties.PolicyDocument.Statement).toContainEqual(
          expect.objectContaining({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        );
      }
    });

    it('versions the archive, logs its access and has no Object Lock unless asked', () => {
      template.hasResourceProperties('AWS::S3::Bucket', {
        VersioningConfiguration: { Status: 'Enabled' },
        LoggingConfiguration: { DestinationBucketName: ref(stack.buckets.logs), LogFilePrefix: 'archive/' },
        ObjectLockEnabled: Match.absent(),
      });
    });

    it('tiers history/, never expires a current data object (a committed file may wait in _staging/), only the fan-out and verify job bookkeeping, and expires noncurrent versions only outside the write-once prefixes', () => {
      const rules = template.toJSON().Resources[archiveBucket.Ref].Properties.LifecycleConfiguration.Rules;
      expect(rules).toContainEqual(
        expect.objectContaining({
          Prefix: 'history/',
          Transitions: [{ StorageClass: 'INTELLIGENT_TIERING', TransitionInDays: 30 }],
        }),
      );
      const bookkeeping = rules.filter(
        (r: { ExpirationInDays?: number }) => r.ExpirationInDays !== undefined,
      );
      expect(bookkeeping).toEqual([
        expect.objectContaining({ Prefix: '_staging/fanout', ExpirationInDays: 7 }),
        expect.objectContaining({ Prefix: verifyJobKeys.prefix, ExpirationInDays: 30 }),
      ]);
      // A verify job's every key is under the expiring prefix; the last job's result, which status and the
      // report read, is not.
      for (const key of [
        verifyJobKeys.plan('j'),
        verifyJobKeys.items('j'),
        verifyJobKeys.listing('j', 'i'),
        verifyJobKeys.itemResult('j', 'i'),
        verifyJobKeys.result('j'),
        `${VERIFY_JOB_MAP_RESULTS_PREFIX}/x.json`,
      ])
        expect(key.startsWith(verifyJobKeys.prefix)).toBe(true);
      expect(archiveKeys.lastFullVerify.startsWith(verifyJobKeys.prefix)).toBe(false);
      const integrityDoc = readFileSync(new URL('../../docs/integrity.md', import.meta.url), 'utf8');
      expect(integrityDoc.replace(/\s+/g, ' ')).toContain(
        `expire after ${VERIFY_JOB_DAYS} days (lifecycle rule \`expire-verify-jobs\`)`,
      );
      // No staged data file can fall under it: a run's staging folder is its 8-hex-digit run id.
      expect(archiveKeys.staging('0f3a9c1d', '2026-11-20', 'x.parquet').startsWith('_staging/fanout')).toBe(
        false,
      );
      expect(rules).toContainEqual(
        expect.objectContaining({ Prefix: '_staging/', NoncurrentVersionExpiration: { NoncurrentDays: 1 } }),
      );
      // A noncurrent version under a write-once prefix exists only if someone deleted the object: it is kept.
      const noncurrent = rules
        .filter((r: { NoncurrentVersionExpiration?: unknown }) => r.NoncurrentVersionExpiration !== undefined)
        .map((r: { Prefix?: string }) => r.Prefix ?? '');
      expect(noncurrent.sort()).toEqual([...NONCURRENT_EXPIRY_PREFIXES].sort());
      for (const prefix of noncurrent)
        expect(digestKeys.writeOncePrefixes.some((p) => p.startsWith(prefix) || prefix.startsWith(p))).toBe(
          false,
        );
    });
  });

  it('keeps state in an on-demand table keyed by pk with PITR and deletion protection', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      Replicas: [
        Match.objectLike({
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ],
    });
  });

  describe('functions (each asserted by its own logical id)', () => {
    const archiver = propsOf({ stack, template }, stack.archiver.fn);
    const snapshots = propsOf({ stack, template }, stack.snapshots.fn);
    const archiverId = stack.getLogicalId(stack.archiver.fn.node.defaultChild as never);

    it('the archiver runs Node 24 on arm64, 15 minutes, a full vCPU of memory, with a failure destination', () => {
      expect(archiver).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Timeout: 900,
        MemorySize: 1769,
      });
      expect(archiver.MemorySize).toBe(ENGINE_MEMORY_MIB);
      // Lambda's CPU follows memory: the walk's page work is measured to fit the latency bound at a full vCPU.
      expect(archiver.MemorySize).toBeGreaterThanOrEqual(FULL_VCPU_MEMORY_MB);
      const configs = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig')).filter(
        (c) => JSON.stringify(c.Properties.FunctionName) === JSON.stringify({ Ref: archiverId }),
      );
      expect(configs).toHaveLength(1);
      expect(configs[0]?.Properties.DestinationConfig).toEqual({
        OnFailure: { Destination: { 'Fn::GetAtt': [expect.stringMatching(/Failures/), 'Arn'] } },
      });
    });

    it('the snapshot function runs Node 24 on arm64, apart from the archiver', () => {
      expect(snapshots).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
      });
      expect(snapshots.Role).not.toEqual(archiver.Role);
    });

    it('each is configured for S3, DynamoDB and the secret through its own environment', () => {
      for (const props of [archiver, snapshots]) {
        expect(props.Environment?.Variables).toMatchObject({
          ARCHIVE_DEST: { 'Fn::Join': ['', ['s3://', archiveBucket, '/']] },
          ARCHIVE_STATE: { 'Fn::Join': ['', ['dynamodb://', ref(stack.table)]] },
          TUNNEL_API_KEY_SECRET_ID: ref(stack.apiKey.secret),
          TOKEN_VALUES: 'hash',
        });
      }
      expect(snapshots.Environment?.Variables).toMatchObject({ SNAPSHOT_INTERVAL_MINUTES: '5' });
    });

    it('the default schedule starts the fan-out state machine (not the function), with retries and a dead-letter queue', () => {
      const rule = propsOf({ stack, template }, stack.archiver.rule) as {
        ScheduleExpression: string;
        Targets: unknown[];
      };
      expect(rule.ScheduleExpression).toBe('rate(6 hours)');
      expect(rule.Targets).toEqual([
        expect.objectContaining({
          Arn: { Ref: stack.getLogicalId(stack.fanout.stateMachine.node.defaultChild as never) },
          RetryPolicy: expect.objectContaining({ MaximumRetryAttempts: 4 }),
          DeadLetterConfig: expect.objectContaining({ Arn: expect.anything() }),
        }),
      ]);
    });
  });

  describe('IAM', () => {
    const statements = iamStatements(template);
    const s3 = statements.filter((s) => s.actions.some((a) => a.startsWith('s3:')));

    it('never allows deleting anything but _staging/ objects', () => {
      const deleting = s3.filter((s) => s.actions.some((a) => /^s3:(Delete|\*)/.test(a)));
      expect(deleting.length).toBeGreaterThan(0);
      const staging = [archiveKeys.stagingPrefix, ...Object.values(archiveKeys.stagingAreas)].map(
        (p) => `/${p}*`,
      );
      for (const s of deleting) for (const r of s.resources.map(resourceSuffix)) expect(staging).toContain(r);
    });

    it('deletes DynamoDB items only under ACTIVE# (chunks of a big live-session state), in every role', () => {
      const deleting = statements.filter((s) => s.actions.some((a) => /^dynamodb:(Delete|\*)/.test(a)));
      expect(deleting.length).toBe(2); // the archiver (it snapshots in every run) and the snapshot function
      for (const s of deleting) {
        expect(s.condition).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ACTIVE_CHUNK_PREFIX}*`] },
        });
      }
    });

    it('grants only object reads and writes on history/ and quarantine/ (reads alone to the detect role)', () => {
      const data = s3.filter((s) =>
        s.resources.some((r) => /^\/(history|quarantine)\/\*$/.test(resourceSuffix(r))),
      );
      expect([...new Set(data.flatMap((s) => s.actions))].sort()).toEqual(['s3:GetObject', 's3:PutObject']);
    });

    it('lets the archiver read and write every dataset a run writes, from the one key layout', () => {
      const archiverPolicies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p).includes('WriteDataNoDelete'),
      );
      const write = archiverPolicies
        .flatMap((p) => p.Properties.PolicyDocument.Statement)
        .find((s: { Sid?: string }) => s.Sid === 'WriteDataNoDelete');
      const suffixes = [write.Resource].flat().map(resourceSuffix).sort();
      expect(suffixes).toEqual(
        [
          archiveKeys.activePrefix,
          archiveKeys.digestsPrefix,
          archiveKeys.findingsPrefix,
          archiveKeys.historyPrefix,
          archiveKeys.quarantinePrefix,
        ]
          .map((p) => `/${p}*`)
          .sort(),
      );
    });

    it('uses no wildcard actions and no managed policies', () => {
      expect(statements.flatMap((s) => s.actions).filter((a) => a.includes('*'))).toEqual([]);
      for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    });

    it('reads only its own two secrets (API key, token key) and uses only its own table', () => {
      const secret = statements.filter((s) => s.actions.some((a) => a.startsWith('secretsmanager:')));
      // Each function (archiver, live-session snapshots) reads exactly the API key and the token key.
      expect(secret).toHaveLength(4);
      expect(new Set(secret.flatMap((s) => s.actions))).toEqual(new Set(['secretsmanager:GetSecretValue']));
      expect(
        secret
          .flatMap((s) => s.resources)
          .map((r) => JSON.stringify(r))
          .sort(),
      ).toEqual(
        [
          ref(stack.apiKey.secret),
          ref(stack.apiKey.secret),
          ref(stack.integrity.tokenKey),
          ref(stack.integrity.tokenKey),
        ]
          .map((r) => JSON.stringify(r))
          .sort(),
      );
      const dynamo = statements.filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));
      expect(new Set(dynamo.flatMap((s) => s.resources).map((r) => JSON.stringify(r)))).toEqual(
        new Set([JSON.stringify({ 'Fn::GetAtt': [ref(stack.table).Ref, 'Arn'] })]),
      );
    });
  });

  describe('alarms', () => {
    const custom = (name: string) => ({
      Namespace: METRICS_NAMESPACE,
      MetricName: name,
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
    });
    const OPERATOR = {
      '>=': 'GreaterThanOrEqualToThreshold',
      '>': 'GreaterThanThreshold',
      '<': 'LessThanThreshold',
    } as const;
    const alarm = (metric: object, op: keyof typeof OPERATOR, Threshold: number, extra: object = {}) => ({
      ...metric,
      ComparisonOperator: OPERATOR[op],
      Threshold,
      ...extra,
    });
    const maximum = { Statistic: 'Maximum' };
    it.each([
      ['function errors', alarm({ Namespace: 'AWS/Lambda', MetricName: 'Errors' }, '>=', 1)],
      ['auth failures', alarm(custom(METRIC.AuthFailures), '>=', 1)],
      [
        'no successful run in a day',
        alarm(custom(METRIC.RunSucceeded), '<', 1, { Period: 86_400, TreatMissingData: 'breaching' }),
      ],
      ['days at risk', alarm(custom(METRIC.DaysAtRisk), '>', 0)],
      ['gaps', alarm(custom(METRIC.Gaps), '>', 0)],
      ['the same day failing on 3 runs in a row', alarm(custom(METRIC.DayFailureStreak), '>=', 3, maximum)],
      ['a blocked partition', alarm(custom(METRIC.BrokenPartitions), '>', 0)],
      [
        'a committed file unpublished for more than a day',
        alarm(custom(METRIC.UnpublishedFileAgeHours), '>', 24, maximum),
      ],
    ])('alarms on %s to the topic', (_name, props) => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        ...props,
        AlarmActions: [ref(stack.alarms.topic)],
      });
    });

    it("the fan-out's function, whose finish step holds a day's ids, has the memory `finish-union` is read against", () => {
      expect(propsOf({ stack, template }, stack.fanout.fn).MemorySize).toBe(ENGINE_MEMORY_MIB);
    });

    it.each([
      ['the archive-history function', () => stack.archiver.fn],
      ["the fan-out's function", () => stack.fanout.fn],
    ])('alarms on errors of %s to the topic', (_name, fn) => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: ref(fn()) }],
        ComparisonOperator: OPERATOR['>='],
        Threshold: 1,
        AlarmActions: [ref(stack.alarms.topic)],
      });
    });

    it('publishes to a KMS-encrypted, TLS-only topic', () => {
      template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
      template.resourceCountIs('AWS::SNS::Subscription', 0);
    });
  });

  describe('catalog', () => {
    const table = Object.values(template.findResources('AWS::Glue::Table'))[0]?.Properties.TableInput;

    it('has exactly the Parquet columns, in file order', () => {
      expect(table.StorageDescriptor.Columns).toEqual(
        HISTORY_COLUMNS.map((c) => ({ Name: c.name, Type: c.athenaType })),
      );
      expect(table.PartitionKeys).toEqual([expect.objectContaining({ Name: 'dt', Type: 'string' })]);
      expect(table.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe(
        'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
      );
      expect(table.StorageDescriptor.Location).toEqual({
        'Fn::Join': ['', ['s3://', archiveBucket, '/history/']],
      });
    });

    it('projects dt as a yyyy-MM-dd date over ten years', () => {
      expect(table.Parameters).toMatchObject({
        'projection.enabled': 'true',
        'projection.dt.type': 'date',
        'projection.dt.format': 'yyyy-MM-dd',
        'projection.dt.range': '2000-01-01,NOW+2DAYS',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Athena's own ${dt} placeholder, not JS.
        'storage.location.template': { 'Fn::Join': ['', ['s3://', archiveBucket, '/history/dt=${dt}/']] },
      });
    });

    it('has an enforced, encrypted Athena workgroup and saved queries', () => {
      template.hasResourceProperties('AWS::Athena::WorkGroup', {
        WorkGroupConfiguration: Match.objectLike({
          EnforceWorkGroupConfiguration: true,
          ResultConfiguration: {
            EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
            OutputLocation: { 'Fn::Join': ['', ['s3://', ref(stack.buckets.athenaResults), '/results/']] },
          },
        }),
      });
      const queries = Object.values(template.findResources('AWS::Athena::NamedQuery'));
      expect(queries.map((q) => q.Properties.Name)).toEqual([
        'Sessions per day',
        'Sessions by mode',
        "A token's sessions",
        'Last 7 days',
      ]);
      for (const q of queries) expect(q.Properties.QueryString).toContain('tunnel_archive.tunnel_sessions');
    });
  });

  it('loads no source map at cold start: no function sets NODE_OPTIONS (docs/operations.md turns it on)', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const ours = functions.filter((f) => f.Properties.Environment?.Variables?.ARCHIVE_DEST !== undefined);
    expect(ours.length).toBeGreaterThanOrEqual(3);
    for (const f of functions) expect(f.Properties.Environment?.Variables?.NODE_OPTIONS).toBeUndefined();
  });

  it('outputs what a user needs after deploy', () => {
    const outputs = Object.keys(template.toJSON().Outputs);
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ArchiveBucketName',
        'StateTableName',
        'ApiKeySecretArn',
        'FunctionName',
        'AthenaWorkGroup',
        'SetApiKeyCommand',
      ]),
    );
  });
});
