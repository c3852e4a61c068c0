/**
 * One warm Lambda container of a function's bundle, for the first week (startContainer.ts starts it with
 * the Lambda's Node, tools/lambda-node, and the function's template environment). Each line on stdin is one
 * invocation at a simulated instant: `Date` reads that instant (and moves on with real time while the
 * invocation runs), so the bundle's clock is the week's, not the machine's. With a state machine in its
 * config, a line may instead start one execution of it (aws-local-stepfunctions), whose Lambda tasks call
 * this same handler, as the state machine's tasks invoke this one function in AWS.
 *
 * Replies `@@REPLY <json>` on stdout per line: the outcome, each handler call's duration, and for an
 * execution the states it entered (Step Functions bills each as a transition).
 */
import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { StateMachine } from 'aws-local-stepfunctions';
import {
  HOST_CLIENT_PLUGINS,
  type HostClientPlugin,
  hostClientPlugins,
} from '../../functions/shared/hostClientPlugins.ts';
import { itemsReadBeforeMap, READ_ITEMS, type StateMachineDefinition } from '../infra/localStateMachine.ts';
import { installSimulatedDate, noClockCorrection } from './simulatedDate.ts';

export interface ContainerConfig {
  bundle: string;
  functionName: string;
  timeoutSeconds: number;
  memoryMb: number;
  stateMachine?: {
    definition: StateMachineDefinition;
    plan: string;
    map: string;
    /** The task states that invoke this function. */
    tasks: string[];
    /** Where ReadItems reads the map's items (ItemReader's bucket on the S3 stand-in). */
    s3: { endpoint: string; bucket: string };
  };
}

export interface InvocationLine {
  n: number;
  /** The simulated instant, epoch ms. */
  at: number;
  kind: 'invoke' | 'execute';
  input: unknown;
  /** An execution's name (`$$.Execution.Name`). */
  name?: string;
}

export interface ContainerReply {
  n: number;
  ok: boolean;
  value?: unknown;
  error?: { name: string; code?: string; message: string };
  durationsMs: number[];
  transitions: number;
}

const config = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as ContainerConfig;

// The simulated clock: `Date` is the week's instant plus the real time since the invocation began.
const clock = installSimulatedDate();
const host = globalThis as { [HOST_CLIENT_PLUGINS]?: HostClientPlugin[] };
host[HOST_CLIENT_PLUGINS] = [...hostClientPlugins(), noClockCorrection];

// S3 Control names its host after the account (`<account>.<endpoint host>`): the stand-in's `localhost`
// endpoint then reads `<account>.localhost`, which the machine's resolver may not know.
const lookup = dns.lookup;
dns.lookup = function (this: unknown, host: string, ...rest: unknown[]) {
  return (lookup as (...a: unknown[]) => unknown).call(
    this,
    host.endsWith('.localhost') ? '127.0.0.1' : host,
    ...rest,
  );
} as typeof dns.lookup;

const { handler } = (await import(config.bundle)) as {
  handler: (event: unknown, context: unknown) => Promise<unknown>;
};

let durations: number[] = [];
let requests = 0;
async function call(event: unknown): Promise<unknown> {
  const started = performance.now();
  const deadline = clock.realNow() + config.timeoutSeconds * 1000;
  const context = {
    functionName: config.functionName,
    functionVersion: '$LATEST',
    memoryLimitInMB: String(config.memoryMb),
    awsRequestId: `req-${++requests}`,
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${config.functionName}`,
    getRemainingTimeInMillis: () => deadline - clock.realNow(),
  };
  try {
    return await handler(event, context);
  } finally {
    durations.push(performance.now() - started);
  }
}

const machine = config.stateMachine;
const local = machine && itemsReadBeforeMap(machine.definition, { plan: machine.plan, map: machine.map });
const stateMachine =
  local && new StateMachine(local as never, { validationOptions: { checkPaths: false, checkArn: false } });
const itemsClient =
  machine &&
  new S3Client({
    region: 'us-east-1',
    endpoint: machine.s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
itemsClient?.middlewareStack.use(noClockCorrection);

async function execute(line: InvocationLine): Promise<{ value: unknown; transitions: number }> {
  if (!stateMachine || !machine || !itemsClient)
    throw new Error(`${config.functionName} runs no state machine`);
  const handlers: Record<string, unknown> = {
    [READ_ITEMS]: async ({ Key }: { Key: string }) => {
      const o = await itemsClient.send(new GetObjectCommand({ Bucket: machine.s3.bucket, Key }));
      return JSON.parse((await o.Body?.transformToString()) ?? '[]');
    },
  };
  for (const task of machine.tasks) handlers[task] = call;
  const execution = stateMachine.run(line.input as never, {
    context: {
      Execution: {
        Name: line.name ?? `exec-${line.n}`,
        Input: line.input as never,
        StartTime: new Date().toISOString(),
      },
    },
    overrides: {
      taskResourceLocalHandlers: handlers as never,
      // A retry waits as the definition says in AWS; here a millisecond, so a week fits in minutes.
      retryIntervalOverrides: Object.fromEntries(machine.tasks.map((t) => [t, 1])),
    },
  });
  let transitions = 0;
  const counted = (async () => {
    for await (const e of execution.eventLogs) if (e.type === 'StateEntered') transitions++;
  })();
  const value = await execution.result;
  await counted;
  return { value, transitions };
}

for await (const text of createInterface({ input: process.stdin })) {
  if (text.trim() === '') continue;
  const line = JSON.parse(text) as InvocationLine;
  clock.set(line.at);
  durations = [];
  let reply: ContainerReply;
  try {
    const out =
      line.kind === 'execute' ? await execute(line) : { value: await call(line.input), transitions: 0 };
    reply = { n: line.n, ok: true, value: out.value, durationsMs: durations, transitions: out.transitions };
  } catch (e) {
    const error = e as Error & { code?: string; cause?: Error };
    reply = {
      n: line.n,
      ok: false,
      error: {
        name: error.name,
        ...(error.code === undefined ? {} : { code: error.code }),
        message: `${error.message}${error.cause ? ` (${error.cause.name}: ${error.cause.message})` : ''}`,
      },
      durationsMs: durations,
      transitions: 0,
    };
  }
  process.stdout.write(`\n@@REPLY ${JSON.stringify(reply)}\n`);
}
