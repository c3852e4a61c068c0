import { processIo } from '../lib/cli/cliIo.ts';
import { main } from '../lib/cli/main.ts';
import { CRASH_POINT, withCrashPoints } from './withCrashPoints.ts';

/**
 * The CLI's main with crash points: `<PHASE:N> <command> [flags]` runs the command as the CLI would, its
 * run's ports wrapped by {@link withCrashPoints}, so the process SIGKILLs itself right after that step.
 */
export async function crashPointMain(argv: string[]): Promise<number> {
  const [crashAt = '', ...rest] = argv;
  if (!CRASH_POINT.test(crashAt)) {
    process.stderr.write(
      `crash point must be PHASE:N (PHASE one of walk, upload, commit, publish, digest; N >= 1), got '${crashAt}'\n`,
    );
    return 2;
  }
  return main(rest, { ...processIo(), wrapRunPorts: (ports) => withCrashPoints(ports, crashAt) });
}
