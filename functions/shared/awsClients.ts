import type { S3ClientConfig } from '@aws-sdk/client-s3';
import type { Pluggable } from '@smithy/types';
import { parseStateUrl } from '../../lib/foundation/url/storeUrl.ts';
import { hostClientPlugins } from './hostClientPlugins.ts';

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

/** A client of AWS SDK v3: its middleware stack takes plugins. */
interface PluggableClient {
  // biome-ignore lint/suspicious/noExplicitAny: each client's stack is typed over its own inputs and outputs.
  middlewareStack: { use(pluggable: Pluggable<any, any>): void };
}

/**
 * The client, with the plugins the host process installed (see {@link hostClientPlugins}; none in Lambda).
 * Every AWS client a handler builds goes through here.
 */
export function withHostPlugins<C extends PluggableClient>(client: C): C {
  for (const plugin of hostClientPlugins()) client.middlewareStack.use(plugin);
  return client;
}
