import { appendFileSync } from 'node:fs';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import type { InitializeMiddleware, MetadataBearer, Pluggable } from '@smithy/types';
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

/**
 * Environment variable naming a file that every AWS call of the function is appended to, one JSON line
 * each: the tests that run a bundle set it, to check each call against the function's role in the
 * template. The stack never sets it.
 */
export const CALL_LOG_ENV = 'AWS_CALL_LOG_FILE';

/**
 * One AWS call: the client, the command and the input's names (bodies and item values left out); `as` is
 * the role whose assumed credentials signed it, when not the function's own (a Security Lake provider role).
 */
export interface RecordedCall {
  client: string;
  command: string;
  input: Record<string, unknown>;
  as?: string;
}

/** A client of AWS SDK v3: its middleware stack takes plugins. */
interface WatchableClient {
  // biome-ignore lint/suspicious/noExplicitAny: each client's stack is typed over its own inputs and outputs.
  middlewareStack: { use(pluggable: Pluggable<any, any>): void };
}

/** Payloads a call log never holds: object bodies, messages, item attributes beyond the key. */
const PAYLOAD_FIELDS = new Set(['Body', 'Message', 'ExpressionAttributeValues', 'SecretString']);

/** The part of a DynamoDB key or item that names it: its partition key (`pk`, lib/state's layout). */
function keyOf(value: unknown): unknown {
  const pk = (value as { pk?: { S?: unknown } } | undefined)?.pk?.S;
  return pk === undefined ? undefined : { pk };
}

/** The input's names: its scalar fields, item keys as their `pk`, batch reads as their keys. */
export function callInput(input: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries((input ?? {}) as Record<string, unknown>)) {
    if (PAYLOAD_FIELDS.has(name)) continue;
    if (name === 'Key' || name === 'Item') {
      out[name] = typeof value === 'string' ? value : keyOf(value);
    } else if (name === 'RequestItems') {
      out[name] = Object.fromEntries(
        Object.entries(value as Record<string, { Keys?: unknown[] }>).map(([table, r]) => [
          table,
          { Keys: (r.Keys ?? []).map(keyOf) },
        ]),
      );
    } else if (['string', 'number', 'boolean'].includes(typeof value)) {
      out[name] = value;
    } else if (name === 'QueryExecutionContext' || name === 'Delete') {
      out[name] = value;
    }
  }
  return out;
}

/**
 * A client plugin appending every call the client sends to the file `env[CALL_LOG_ENV]` names (none when
 * unset); `as` names the role whose assumed credentials the client signs with. For clients a handler does
 * not build itself, such as the STS client of an assumed-role credential provider (`clientPlugins`).
 */
export function callLogPlugin(
  env: Record<string, string | undefined>,
  as?: string,
): Pluggable<object, MetadataBearer> {
  const file = env[CALL_LOG_ENV];
  return {
    applyToStack(stack) {
      if (file === undefined || file === '') return;
      const log: InitializeMiddleware<object, MetadataBearer> = (next, context) => async (args) => {
        const call: RecordedCall = {
          client: context.clientName ?? '?',
          command: context.commandName ?? '?',
          input: callInput(args.input),
          ...(as === undefined ? {} : { as }),
        };
        appendFileSync(file, `${JSON.stringify(call)}\n`);
        return next(args);
      };
      stack.add(log, { step: 'initialize', name: 'callLog' });
    },
  };
}

/**
 * The client, with every call it sends appended to the file `env[CALL_LOG_ENV]` names (when set).
 * Every AWS client a handler builds goes through here.
 */
export function withCallLog<C extends WatchableClient>(
  client: C,
  env: Record<string, string | undefined>,
  as?: string,
): C {
  client.middlewareStack.use(callLogPlugin(env, as));
  return client;
}
