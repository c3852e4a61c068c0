// The Node flags the CLI runs with, and when it must start Node again to get them. One source for
// bin/tunnel-archiver.js, `npm start` (package.json; test/bin/cliNodeFlags.int.test.ts checks it) and the bench.

/**
 * A young generation of 4 MiB a semi-space. From Node 22, V8 sizes it up to 64 MiB (Node 20: 16), and a
 * million-record day then peaked near 350 MiB RSS. At 8 MiB the 1M backfill still peaked at up to 262 MiB
 * on Node 24; at 4, 214–224 MiB in six runs, for about 7% more CPU (bench/PROFILE.md).
 */
export const CLI_NODE_FLAGS = ['--max-semi-space-size=4'];

/** The first Node major whose V8 sizes the young generation past what the memory target allows. */
export const FIRST_MAJOR_NEEDING_FLAGS = 22;

/** Set in the environment of a CLI process that was started again with the flags (never started a third time). */
export const RESPAWNED_ENV = 'TUNNEL_ARCHIVER_RESPAWNED';

/** `--max_semi_space_size=4` and `--max-semi-space-size 4` name the same V8 flag. */
function flagName(arg) {
  return arg.split('=', 1)[0].replaceAll('_', '-');
}

/**
 * The flags of {@link CLI_NODE_FLAGS} that a CLI process must be started again with: none on Node 20
 * (its default meets the target), none the user already gave on the command line or in `NODE_OPTIONS`
 * (their value wins, whatever it is), and none in a process that was already started again.
 */
export function nodeFlagsToAdd({ execArgv, env, version }) {
  if (env[RESPAWNED_ENV] === '1') return [];
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? Number.NaN);
  if (!(major >= FIRST_MAJOR_NEEDING_FLAGS)) return [];
  const given = new Set(
    [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].filter((a) => a.startsWith('--')).map(flagName),
  );
  return CLI_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}
