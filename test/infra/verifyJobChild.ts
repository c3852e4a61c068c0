/**
 * Runs the verify job's synthesized state machine under aws-local-stepfunctions (Node >= 22: started with the
 * Lambda's Node by verifyJobStateMachine.int.test.ts), its Lambda tasks overridden to call the real handler
 * (functions/verify-job/verifyJobHandler.ts) in process over a file store. Prints one `RESULT <json>` line.
 *
 * Its map's items are read before the map, as ItemReader reads them (localStateMachine.ts).
 *
 * argv: the definition file, then a JSON list of executions: `{ dir, jobId, failItem? }`, run in order. With
 * `failItem` (an item id, or `last`: the plan's last item), that item's check throws (a worker that keeps
 * failing): the execution fails, as the map does in AWS with no tolerated failures.
 */
import { readFileSync } from 'node:fs';
import { StateMachine } from 'aws-local-stepfunctions';
import { itemsReadBeforeMap, READ_ITEMS } from '../../devkit/infra/localStateMachine.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { systemClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';

const [definitionFile, executionsJson] = process.argv.slice(2);
const definition = JSON.parse(readFileSync(definitionFile as string, 'utf8'));
const executions = JSON.parse(executionsJson as string) as {
  dir: string;
  jobId: string;
  failItem?: string;
}[];
const { createVerifyJobHandler } = await import('../../functions/verify-job/verifyJobHandler.ts');

const local = itemsReadBeforeMap(definition, { plan: 'Plan', map: 'CheckItems' });
const machine = new StateMachine(local as never, {
  validationOptions: { checkPaths: false, checkArn: false },
});
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

const out: unknown[] = [];
for (const [n, e] of executions.entries()) {
  const objects = createFileObjectStore(e.dir);
  const handler = createVerifyJobHandler({ objects, clock: systemClock, logger: silentLogger });
  const checks: { id: string; reused: boolean; failures: number }[] = [];
  let failing: string | undefined;
  /** Item checks started: a failed execution's other items may still be running when it rejects. */
  const inFlight = new Set<Promise<unknown>>();
  try {
    const output = await machine.run(
      { jobId: e.jobId },
      {
        context: {
          Execution: { Name: `exec-${n}`, Input: { jobId: e.jobId }, StartTime: new Date().toISOString() },
        },
        overrides: {
          retryIntervalOverrides: { Plan: 1, CheckItem: 1, Merge: 1 },
          taskResourceLocalHandlers: {
            Plan: (input: unknown) => handler(input),
            [READ_ITEMS]: async ({ Key }: { Key: string }) => {
              const items = JSON.parse(new TextDecoder().decode(await objects.get(Key))) as { id: string }[];
              failing = e.failItem === 'last' ? items.at(-1)?.id : e.failItem;
              return items;
            },
            CheckItem: async (input: { item: { id: string } }) => {
              if (input.item.id === failing) throw named('Archiver.INTERNAL', 'the worker failed');
              const call = handler(input) as Promise<{ id: string; reused: boolean; failures: number }>;
              inFlight.add(call);
              const outcome = await call;
              checks.push(outcome);
              return outcome;
            },
            Merge: (input: unknown) => handler(input),
          } as never,
        },
      },
    ).result;
    out.push({ output, checks });
  } catch (error) {
    const { name, message, cause } = error as Error & { cause?: Error };
    out.push({ error: { name, message, ...(cause ? { cause: cause.name } : {}) }, checks });
  } finally {
    // The next execution starts once this one's items have stopped, as a job is started again after a failure.
    await Promise.allSettled(inFlight);
  }
}
console.log(`RESULT ${JSON.stringify(out)}`);
