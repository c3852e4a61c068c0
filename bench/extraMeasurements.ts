import type { BenchEntry } from './benchEntry.ts';

/** The names `--only` takes for the measurements below (besides the cases'). */
export const EXTRA_MEASUREMENTS = ['quiet-run', 'walk-requests', 'rescan', 'stage-costs'] as const;

/**
 * The measurements that are not cases, each an entry of the registry: quiet runs (`quiet-run`), walk
 * requests (`walk-requests`), a rescan's CPU against the first walk's (`rescan`), each stage of a record's
 * work alone (`stage-costs`). Each logs `{ bench: <name>, result }`; the script-targets section shows them.
 */
export function extraEntries(quick: boolean): BenchEntry[] {
  const logged = async <T>(
    ctx: Parameters<BenchEntry['run']>[0],
    name: (typeof EXTRA_MEASUREMENTS)[number],
    measure: () => Promise<T>,
  ): Promise<T | undefined> => {
    const result = await ctx.attempt({ bench: name }, measure);
    if (result !== undefined) console.log(JSON.stringify({ bench: name, result }));
    return result;
  };
  return [
    {
      name: 'quiet-run',
      async run(ctx) {
        const quiet = await logged(ctx, 'quiet-run', async () => {
          const { quietCliRun, quietLambdaRun } = await import('./quietRun.ts');
          const runs = quick ? 3 : 5;
          // The CLI under the bench's Node (20), and under Node 24, where a bare start starts Node again with
          // the CLI's flags (bin/respawn.js), as the installed bin does.
          const { LAMBDA_NODE } = await import('../devkit/lambdaNode.ts');
          return [await quietCliRun(runs), await quietCliRun(runs, LAMBDA_NODE), await quietLambdaRun(runs)];
        });
        return quiet ? { quiet } : {};
      },
      merge: (fresh, previous) => ({ quiet: fresh.quiet ?? previous?.quiet }),
    },
    {
      name: 'walk-requests',
      async run(ctx) {
        const walks = await logged(ctx, 'walk-requests', async () => {
          const { walkRequests } = await import('./walkRequests.ts');
          return [await walkRequests('stable'), await walkRequests('reshuffled')];
        });
        return walks ? { walks } : {};
      },
      merge: (fresh, previous) => ({ walks: fresh.walks ?? previous?.walks }),
    },
    {
      name: 'rescan',
      async run(ctx) {
        const rescan = await logged(ctx, 'rescan', async () => {
          const { rescanCost } = await import('./rescanCost.ts');
          return quick ? rescanCost(20_000, 1) : rescanCost(100_000, 3);
        });
        return rescan ? { rescan } : {};
      },
      merge: (fresh, previous) => ({ rescan: fresh.rescan ?? previous?.rescan }),
    },
    {
      name: 'stage-costs',
      async run(ctx) {
        const stages = await logged(ctx, 'stage-costs', async () => {
          const { stageCosts } = await import('./stageCosts.ts');
          return quick ? stageCosts(2, 2) : stageCosts(20, 5);
        });
        return stages ? { stages } : {};
      },
      merge: (fresh, previous) => ({ stages: fresh.stages ?? previous?.stages }),
    },
  ];
}
