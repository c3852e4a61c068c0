import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { nodeVersion } from '../../bench/nodeVersion.ts';
import { LAMBDA_NODE } from '../../devkit/lambdaNode.ts';
import { LAMBDA_NODE_MAJOR } from '../../infra/constructs/archiveFunction.ts';

describe('the version of a Node binary', () => {
  it("is this process's own for its Node, and the binary's answer for another", () => {
    expect(nodeVersion(process.execPath)).toBe(process.version);
    const lambda = nodeVersion(LAMBDA_NODE);
    expect(lambda).toBe(execFileSync(LAMBDA_NODE, ['-v'], { encoding: 'utf8' }).trim());
    expect(lambda.startsWith(`v${LAMBDA_NODE_MAJOR}.`)).toBe(true);
    // Asked once: the same answer again, whatever the binary does meanwhile.
    expect(nodeVersion(LAMBDA_NODE)).toBe(lambda);
  });

  it('fails for a path that is no Node', () => {
    expect(() => nodeVersion('/nonexistent/node')).toThrow();
  });
});
