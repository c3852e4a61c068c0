/**
 * The Security Lake custom source the infra tests turn the stack's `securityLake` opt-in on with (so every
 * function the stack can have is there), and what its external-id secret holds.
 */
export const LAKE_SOURCE = {
  cls: 'sessions',
  bucket: 'aws-security-data-lake-us-east-1-test',
  prefix: 'ext/tunnel-archiver-sessions/',
  roleArn: 'arn:aws:iam::123456789012:role/AmazonSecurityLake-Provider-tunnel-archiver-sessions-us-east-1',
  externalIdSecret: 'tunnel-archiver/lake-external-id-sessions',
} as const;

/** The external id the source's secret holds (the stack names the secret, never the id). */
export const LAKE_EXTERNAL_ID = 'external-sessions';

/** The `securityLake` context with that one source, as `-c securityLake='…'` gives it. */
export const LAKE_CONTEXT = { securityLake: JSON.stringify({ sources: [LAKE_SOURCE] }) };
