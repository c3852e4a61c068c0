import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { parseStateUrl } from '../../lib/url/storeUrl.ts';

/**
 * S3 client settings for the environment: AWS itself needs none; an S3-compatible endpoint
 * (`AWS_ENDPOINT_URL_S3`, used by the bundle test) wants path-style addressing and no optional
 * checksums, as in `objectStoreFromUrl`'s default client.
 */
export function s3ClientConfig(env: Record<string, string | undefined>): S3ClientConfig {
  const endpoint = env.AWS_ENDPOINT_URL_S3;
  if (endpoint === undefined || endpoint === '') return {};
  return {
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/** The table of `dynamodb://table`; the Lambda keeps state only in DynamoDB. */
export function tableFromStateUrl(state: string | undefined): string | undefined {
  if (state === undefined || !state.trim().startsWith('dynamodb://')) return undefined;
  return parseStateUrl(state).table;
}
