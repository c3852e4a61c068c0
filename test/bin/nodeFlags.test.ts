import { describe, expect, it } from 'vitest';
import { CLI_NODE_FLAGS, nodeFlagsToAdd, RESPAWNED_ENV } from '../../bin/nodeFlags.js';

const bare = (version: string, env: Record<string, string> = {}, execArgv: string[] = []) =>
  nodeFlagsToAdd({ execArgv, env, version });

describe('nodeFlagsToAdd: when the CLI starts Node again with its flags', () => {
  it('bounds the young generation', () => {
    expect(CLI_NODE_FLAGS.some((f) => /^--max-semi-space-size=\d+$/.test(f))).toBe(true);
  });

  it('adds the flags on Node 22 and later, where V8 sizes the young generation past 16 MiB a semi-space', () => {
    for (const version of ['v22.0.0', 'v24.21.0', 'v26.1.0', '24.21.0']) {
      expect(bare(version)).toEqual([...CLI_NODE_FLAGS]);
    }
  });

  it('adds nothing on Node 20, whose default meets the memory target, nor on a version it cannot read', () => {
    for (const version of ['v20.20.2', 'v21.7.3', 'v18.0.0', 'nightly', ''])
      expect(bare(version)).toEqual([]);
  });

  it('leaves a flag the user gave on the command line or in NODE_OPTIONS alone, in any spelling', () => {
    const given = [
      { execArgv: ['--max-semi-space-size=16'] },
      { execArgv: ['--max_semi_space_size=32'] },
      { execArgv: ['--max-semi-space-size', '4'] },
      { env: { NODE_OPTIONS: '--require x.cjs  --max-semi-space-size=64' } },
      { env: { NODE_OPTIONS: '--max_semi_space_size=2' } },
    ];
    for (const g of given) expect(bare('v24.21.0', g.env ?? {}, g.execArgv ?? [])).toEqual([]);
    // Other flags are not this one.
    expect(bare('v24.21.0', { NODE_OPTIONS: '--max-old-space-size=512' }, ['--max-semi-space'])).toEqual([
      ...CLI_NODE_FLAGS,
    ]);
  });

  it('never starts a process that was started again a third time', () => {
    expect(bare('v24.21.0', { [RESPAWNED_ENV]: '1' })).toEqual([]);
  });
});
