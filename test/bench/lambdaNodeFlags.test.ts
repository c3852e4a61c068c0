import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bigDayRuntime, localExecWrapper } from '../../bench/bigDay.ts';
import { shippedSettings } from '../../bench/shippedSettings.ts';
import { LAMBDA_NODE } from '../../devkit/lambdaNode.ts';
import { lambdaNodeFlags } from '../../devkit/lambdaNodeFlags.ts';
import { ENGINE_EXEC_WRAPPER, LAMBDA_RUNTIME } from '../../infra/constructs/archiveFunction.ts';

describe('a big-day run as the Lambda runs', () => {
  it("is given the flags Lambda's runtime derives from the function's memory", () => {
    expect(lambdaNodeFlags(1769)).toEqual([
      '--expose-gc',
      '--max-http-header-size=81920',
      '--max-semi-space-size=88',
      '--max-old-space-size=1593',
    ]);
    expect(lambdaNodeFlags(1024)).toContain('--max-old-space-size=922');
    expect(() => lambdaNodeFlags(64)).toThrow(/not a Lambda memory size/);
  });

  it("starts the template's Node major with the archiver's memory flags and the bundle's inline encoder", () => {
    const runtime = bigDayRuntime('lambda');
    const major = /^v(\d+)\./.exec(runtime.version)?.[1];
    expect(LAMBDA_RUNTIME.name).toBe(`nodejs${major}.x`);
    expect(runtime.node).toBe(LAMBDA_NODE);
    expect(runtime.nodeFlags).toEqual(lambdaNodeFlags(shippedSettings().archiver.memoryMb));
    expect(runtime.encoder).toBe('inline');
    // Through the exec wrapper the archiver's template names, this repository's copy of it.
    const named = shippedSettings().execWrappers.archiver;
    expect(named).toBe(ENGINE_EXEC_WRAPPER.path);
    expect(runtime.execWrapper).toBe(ENGINE_EXEC_WRAPPER.source);
    // The wrapper and the flags start that Node (one it refused would fail here, as it would fail every run).
    const exposed = execFileSync(
      runtime.execWrapper as string,
      [LAMBDA_NODE, ...runtime.nodeFlags, '-p', 'typeof gc'],
      { encoding: 'utf8' },
    );
    expect(exposed.trim()).toBe('function');
  });

  it("finds the repository's copy of a wrapper only where the template's path is the one bundled", () => {
    expect(localExecWrapper(null)).toBeUndefined();
    expect(localExecWrapper(ENGINE_EXEC_WRAPPER.path)).toBe(ENGINE_EXEC_WRAPPER.source);
    expect(() => localExecWrapper('/opt/other-wrapper')).toThrow(/no script here is bundled as/);
  });

  it('as the CLI runs here: this Node, and the encoder only when asked for', () => {
    const local = bigDayRuntime('local');
    expect(local.node).toBe(process.execPath);
    expect(local.version).toBe(process.version);
    expect(local.encoder).toBeUndefined();
    expect(local.execWrapper).toBeUndefined();
    expect(bigDayRuntime('local', 'worker').encoder).toBe('worker');
  });
});
