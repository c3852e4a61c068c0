/**
 * The public list prices the cost model (monthlyCost.ts) multiplies the measured usage by: us-east-1, on-demand,
 * no free tier, no savings plan. Each names its pricing page; they were copied when the model was written, so
 * check the page before quoting a figure to anyone.
 */
export interface ListPrice {
  /** US dollars for one `unit`. */
  usd: number;
  unit: string;
  source: string;
}

const per = (usd: number, count: number) => usd / count;

export const LIST_PRICES = {
  lambdaGbSecondArm64: {
    usd: 0.0000133334,
    unit: 'GB-second (arm64)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaGbSecondX86: {
    usd: 0.0000166667,
    unit: 'GB-second (x86_64)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaRequest: { usd: per(0.2, 1e6), unit: 'request', source: 'https://aws.amazon.com/lambda/pricing/' },
  stateTransition: {
    usd: per(0.025, 1000),
    unit: 'state transition (Standard)',
    source: 'https://aws.amazon.com/step-functions/pricing/',
  },
  dynamoWrite: {
    usd: per(0.625, 1e6),
    unit: 'write request unit (on-demand)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoRead: {
    usd: per(0.125, 1e6),
    unit: 'read request unit (on-demand)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  s3Write: {
    usd: per(0.005, 1000),
    unit: 'PUT, COPY, POST or LIST request',
    source: 'https://aws.amazon.com/s3/pricing/',
  },
  s3Read: {
    usd: per(0.0004, 1000),
    unit: 'GET or other request',
    source: 'https://aws.amazon.com/s3/pricing/',
  },
  s3Storage: { usd: 0.023, unit: 'GB-month (Standard)', source: 'https://aws.amazon.com/s3/pricing/' },
  athenaScan: {
    usd: 5,
    unit: 'TB scanned (10 MB least a query)',
    source: 'https://aws.amazon.com/athena/pricing/',
  },
  customMetric: {
    usd: 0.3,
    unit: 'custom metric-month (first 10,000)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  logIngestion: {
    usd: 0.5,
    unit: 'GB of logs ingested',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  batchJob: { usd: 0.25, unit: 'S3 Batch Operations job', source: 'https://aws.amazon.com/s3/pricing/' },
  batchObject: {
    usd: per(1, 1e6),
    unit: 'object a Batch Operations job processes',
    source: 'https://aws.amazon.com/s3/pricing/',
  },
  snsPublish: { usd: per(0.5, 1e6), unit: 'SNS publish', source: 'https://aws.amazon.com/sns/pricing/' },
  eventBridgeEvent: {
    usd: per(1, 1e6),
    unit: 'custom event put',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  secretsApi: {
    usd: per(0.05, 10_000),
    unit: 'Secrets Manager API call',
    source: 'https://aws.amazon.com/secrets-manager/pricing/',
  },
  kmsRequest: { usd: per(0.03, 10_000), unit: 'KMS request', source: 'https://aws.amazon.com/kms/pricing/' },
  alarm: { usd: 0.1, unit: 'alarm-month (standard)', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
  dashboard: { usd: 3, unit: 'dashboard-month', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
  secret: { usd: 0.4, unit: 'secret-month', source: 'https://aws.amazon.com/secrets-manager/pricing/' },
  kmsKey: { usd: 1, unit: 'customer managed key-month', source: 'https://aws.amazon.com/kms/pricing/' },
} as const satisfies Record<string, ListPrice>;

export type PriceName = keyof typeof LIST_PRICES;
