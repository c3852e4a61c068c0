import type { QuietRun } from './quietRun.ts';
import type { RescanCost } from './rescanCost.ts';
import type { StageCosts } from './stageCosts.ts';
import type { WalkRequests } from './walkRequests.ts';

/** The names `--only` takes for the measurements below (besides the cases'). */
export const EXTRA_MEASUREMENTS = ['quiet-run', 'walk-requests', 'rescan', 'stage-costs'] as const;
type ExtraName = (typeof EXTRA_MEASUREMENTS)[number];

export interface ExtraMeasurements {
  quiet?: QuietRun[];
  walks?: WalkRequests[];
  rescan?: RescanCost;
  stages?: StageCosts;
  failed: number;
}

/**
 * The measurements that are not cases: quiet runs (`quiet-run`), walk requests
 * (`walk-requests`), a rescan's CPU against the first walk's (`rescan`), each stage of a record's work
 * alone (`stage-costs`).
 */
export async function extraMeasurements(
  only: readonly string[] | undefined,
  quick: boolean,
): Promise<ExtraMeasurements> {
  const out: ExtraMeasurements = { failed: 0 };
  const attempt = async <T>(name: ExtraName, measure: () => Promise<T>): Promise<T | undefined> => {
    if (only && !only.includes(name)) return undefined;
    try {
      const result = await measure();
      console.log(JSON.stringify({ bench: name, result }));
      return result;
    } catch (error) {
      out.failed++;
      console.log(JSON.stringify({ bench: name, error: String(error) }));
      return undefined;
    }
  };
  const quiet = await attempt('quiet-run', async () => {
    const { quietCliRun, quietLambdaRun } = await import('./quietRun.ts');
    const runs = quick ? 3 : 5;
    // The CLI under the bench's Node (20), and under Node 24, where a bare start starts Node again with
    // the CLI's flags (bin/respawn.js), as the installed bin does.
    const { LAMBDA_NODE } = await import('../devkit/lambdaNode.ts');
    return [await quietCliRun(runs), await quietCliRun(runs, LAMBDA_NODE), await quietLambdaRun(runs)];
  });
  if (quiet) out.quiet = quiet;
  const walks = await attempt('walk-requests', async () => {
    const { walkRequests } = await import('./walkRequests.ts');
    return [await walkRequests('stable'), await walkRequests('reshuffled')];
  });
  if (walks) out.walks = walks;
  const rescan = await attempt('rescan', async () => {
    const { rescanCost } = await import('./rescanCost.ts');
    return quick ? rescanCost(20_000, 1) : rescanCost(100_000, 3);
  });
  if (rescan) out.rescan = rescan;
  const stages = await attempt('stage-costs', async () => {
    const { stageCosts } = await import('./stageCosts.ts');
    return quick ? stageCosts(2, 2) : stageCosts(20, 5);
  });
  if (stages) out.stages = stages;
  return out;
}
