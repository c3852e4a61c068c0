import { describe, expect, it } from 'vitest';
import { lambdaCommand } from '../../devkit/lambdaCommand.ts';

describe('the command Lambda starts a function with', () => {
  it('is the Node itself when the function names no exec wrapper', () => {
    expect(lambdaCommand('/var/lang/bin/node', ['--expose-gc', 'index.mjs'])).toEqual([
      '/var/lang/bin/node',
      ['--expose-gc', 'index.mjs'],
    ]);
  });

  it("is the wrapper, given the Node's path and every argument in order, when the function names one", () => {
    const args = ['--expose-gc', 'a b', '', 'index.mjs'];
    expect(lambdaCommand('/var/lang/bin/node', args, '/var/task/wrap.sh')).toEqual([
      '/var/task/wrap.sh',
      ['/var/lang/bin/node', ...args],
    ]);
    // The caller's array is not the one returned (a spawn may not alter it).
    expect(lambdaCommand('/n', args)[1]).not.toBe(args);
  });
});
