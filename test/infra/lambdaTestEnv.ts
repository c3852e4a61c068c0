/** Local stand-ins of what a Lambda of the stack talks to. */
export interface LambdaPeers {
  s3: { endpoint: string; bucket: string };
  dynamo: { endpoint: string; table: string };
  secrets: { endpoint: string };
  kms: { endpoint: string };
  apiUrl: string;
}

/** The secret ids and key the tests' stubs hold. */
export const TEST_LAMBDA_IDS = {
  apiKeySecret: 'tunnel-archiver/api-key',
  tokenKeySecret: 'tunnel-archiver/token-key',
  signingKey: 'arn:aws:kms:us-east-1:000000000000:key/digest-signing-key',
} as const;

/** The environment a Lambda of the stack gets, pointed at local peers (the SDK reads the endpoint URLs). */
export function lambdaTestEnv(p: LambdaPeers): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_S3: p.s3.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: p.dynamo.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: p.secrets.endpoint,
    AWS_ENDPOINT_URL_KMS: p.kms.endpoint,
    DIGEST_SIGNING_KEY_ID: TEST_LAMBDA_IDS.signingKey,
    TOKEN_KEY_SECRET_ID: TEST_LAMBDA_IDS.tokenKeySecret,
    TUNNEL_API_BASE_URL: p.apiUrl,
    TUNNEL_API_KEY_SECRET_ID: TEST_LAMBDA_IDS.apiKeySecret,
    ARCHIVE_DEST: `s3://${p.s3.bucket}/`,
    ARCHIVE_STATE: `dynamodb://${p.dynamo.table}`,
  };
}
