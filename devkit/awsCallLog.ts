import { appendFileSync } from 'node:fs';
import type { BuildMiddleware, InitializeMiddleware, MetadataBearer } from '@smithy/types';
import {
  HOST_CLIENT_PLUGINS,
  type HostClientPlugin,
  hostClientPlugins,
} from '../functions/shared/hostClientPlugins.ts';

/** The environment variable naming the file a process preloaded with {@link AWS_CALL_LOG_PRELOAD} records into. */
export const AWS_CALL_LOG_ENV = 'DEVKIT_AWS_CALL_LOG';

/**
 * The preload (`node --import <this URL>`) that records every AWS call of a function's bundle into the file
 * `AWS_CALL_LOG_ENV` names: the bundle test runs each bundle with it.
 */
export const AWS_CALL_LOG_PRELOAD = new URL('./awsCallLogPreload.ts', import.meta.url).href;

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

/** Payloads a call log never holds: object bodies, messages, item attributes beyond the key. */
const PAYLOAD_FIELDS = new Set(['Body', 'Message', 'ExpressionAttributeValues', 'SecretString']);

/** The part of a DynamoDB key or item that names it: its partition key (`pk`, lib/archive/state's layout). */
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

/** The call being sent, kept on its handler context between the two steps of {@link awsCallLogPlugin}. */
const CALL = Symbol('recordedCall');
type CallContext = { [CALL]?: Omit<RecordedCall, 'as'>; __smithy_context?: SmithyContext };
/** The part of the SDK's own context that holds the identity a call is signed with. */
type SmithyContext = { selectedHttpAuthScheme?: { identity?: { accessKeyId?: string } } };

/**
 * A client plugin appending every call the client sends to `file`, one JSON line each. A call is named at
 * its start (client, command, input) and written once its identity is chosen (the build step, before any
 * retry): a call signed with credentials an `AssumeRole` of this process returned carries that role as `as`.
 */
export function awsCallLogPlugin(file: string): HostClientPlugin {
  /** The access key ids `AssumeRole` returned in this process, each with the role it assumed. */
  const assumed = new Map<string, string>();
  return {
    applyToStack(stack) {
      const name: InitializeMiddleware<object, MetadataBearer> = (next, context) => async (args) => {
        (context as CallContext)[CALL] = {
          client: context.clientName ?? '?',
          command: context.commandName ?? '?',
          input: callInput(args.input),
        };
        const result = await next(args);
        const role = (args.input as { RoleArn?: string }).RoleArn;
        const key = (result.output as { Credentials?: { AccessKeyId?: string } }).Credentials?.AccessKeyId;
        if (context.commandName === 'AssumeRoleCommand' && role && key) assumed.set(key, role);
        return result;
      };
      const write: BuildMiddleware<object, MetadataBearer> = (next, context) => async (args) => {
        const c = context as CallContext;
        const call = c[CALL];
        if (call !== undefined) {
          const as = assumed.get(c.__smithy_context?.selectedHttpAuthScheme?.identity?.accessKeyId ?? '');
          appendFileSync(file, `${JSON.stringify({ ...call, ...(as === undefined ? {} : { as }) })}\n`);
          delete c[CALL];
        }
        return next(args);
      };
      stack.add(name, { step: 'initialize', name: 'callLogName' });
      stack.add(write, { step: 'build', name: 'callLogWrite', priority: 'high' });
    },
  };
}

/**
 * Records every AWS call of the clients the functions build from now on into `file` (see
 * {@link awsCallLogPlugin}), through the host's plugins (functions/shared/hostClientPlugins.ts).
 */
export function installAwsCallLog(file: string): void {
  (globalThis as { [HOST_CLIENT_PLUGINS]?: HostClientPlugin[] })[HOST_CLIENT_PLUGINS] = [
    ...hostClientPlugins(),
    awsCallLogPlugin(file),
  ];
}
