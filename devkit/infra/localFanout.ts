/**
 * The fan-out's synthesized state machine under aws-local-stepfunctions (Node >= 22: run it with the Lambda's
 * Node, tools/lambda-node), its Lambda tasks calling the real handler (functions/fanout/handler.ts) in process,
 * against s3rver, dynalite and the KMS and Secrets Manager stubs, all started here. Used by the state machine's
 * integration test (fanoutChild.ts) and by the bench (`fanout-local`): one runner for both.
 *
 * Its map's items are read before the map, as ItemReader reads them (localStateMachine.ts). A failed item is isolated by the definition's own Catch (`ItemFailed`), which the runner does run.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { StateMachine } from 'aws-local-stepfunctions';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import type { S3rverHandle } from '../startS3rver.ts';
import { itemsReadBeforeMap, READ_ITEMS, type StateMachineDefinition } from './localStateMachine.ts';
import { startStandInsFor } from './standInsFor.ts';

/** What a task state's local handler gets and gives: the runner types them over JSON values. */
export type TaskHandler = (input: never) => Promise<unknown>;

export interface LocalFanout {
  /** The real fan-out handler, its clients built from the peers' environment, on the given clock. */
  handler: (input: unknown) => Promise<unknown>;
  s3: S3rverHandle;
  /**
   * Runs one orchestration. `tasks` wraps the task states (Plan, WalkItem, Finish; ReadItems is this
   * runner's): each default calls the real handler.
   */
  run(
    name: string,
    opts?: {
      tasks?: Partial<Record<'Plan' | 'WalkItem' | 'Finish', TaskHandler>>;
      retryIntervalOverrides?: Record<string, number>;
    },
  ): { result: Promise<unknown> };
  close(): Promise<void>;
}

export async function startLocalFanout(opts: {
  definition: StateMachineDefinition;
  /** The API stand-in's address (the emulator or a replay server started by the caller). */
  apiUrl: string;
  clock: Clock;
  /**
   * The fan-out function's `Environment.Variables` as the synthesized template sets them (`templateVariables`;
   * what a test changes goes through the stack's context, e.g. `windowDays`), never a hand-written copy.
   */
  templateEnv: Record<string, string>;
}): Promise<LocalFanout> {
  const standIns = await startStandInsFor(opts.templateEnv, 'fanout');
  const { s3 } = standIns;
  // The template's environment and the stand-ins' addresses: the API's too, since the caller starts it.
  Object.assign(process.env, { ...standIns.env, TUNNEL_API_BASE_URL: opts.apiUrl });
  // The real handler's runtime, its clients built from the environment above (as in a Lambda container).
  const { lambdaDeps } = await import('../../functions/shared/lambdaRuntime.ts');
  const { createFanoutHandler } = await import('../../functions/fanout/fanoutHandler.ts');
  const fanout = createFanoutHandler({ ...lambdaDeps, clock: opts.clock });
  const context = {
    functionName: 'fanout',
    awsRequestId: 'req',
    getRemainingTimeInMillis: () => 300_000,
  } as never;
  const handler = (input: unknown) => fanout(input as never, context);

  const local = itemsReadBeforeMap(opts.definition, { plan: 'Plan', map: 'Walk' });
  const machine = new StateMachine(local as never, {
    validationOptions: { checkPaths: false, checkArn: false },
  });
  return {
    handler,
    s3,
    run: (name, runOpts = {}) =>
      machine.run(
        {},
        {
          context: { Execution: { Name: name, Input: {}, StartTime: opts.clock.now().toISOString() } },
          overrides: {
            ...(runOpts.retryIntervalOverrides
              ? { retryIntervalOverrides: runOpts.retryIntervalOverrides }
              : {}),
            // Typed loosely: the runner types its handlers over JSON values.
            taskResourceLocalHandlers: {
              Plan: runOpts.tasks?.Plan ?? handler,
              [READ_ITEMS]: async ({ Key }: { Key: string }) => {
                const o = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key }));
                return JSON.parse(
                  await (o.Body as { transformToString(): Promise<string> }).transformToString(),
                );
              },
              WalkItem: runOpts.tasks?.WalkItem ?? handler,
              Finish: runOpts.tasks?.Finish ?? handler,
            } as never,
          },
        },
      ),
    close: async () => {
      await standIns.close();
    },
  };
}
