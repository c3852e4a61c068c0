import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../devkit/infra/templateArns.ts';
import { templateVariables } from '../../devkit/infra/templateEnv.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { lambdaCommand } from '../../devkit/lambdaCommand.ts';
import { LAMBDA_NODE } from '../../devkit/lambdaNode.ts';
import { lambdaNodeFlags } from '../../devkit/lambdaNodeFlags.ts';
import {
  ENGINE_BUNDLING,
  ENGINE_EXEC_WRAPPER,
  ENGINE_MEMORY_MIB,
} from '../../infra/constructs/archiveFunction.ts';

/** Runs `script` (ESM) on the Lambda's Node started through the wrapper, with the runtime's flags and `args`. */
function throughWrapper(script: string, args: string[] = []) {
  const nodeArgs = [...lambdaNodeFlags(ENGINE_MEMORY_MIB), '--input-type=module', '-e', script, ...args];
  return spawnSync(...lambdaCommand(LAMBDA_NODE, nodeArgs, ENGINE_EXEC_WRAPPER.source), {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
}

describe('the exec wrapper every function that runs the engine starts through', () => {
  let template: CfnTemplate;
  let ids: Record<'archiver' | 'fanout' | 'verifyJob' | 'snapshots', string>;
  beforeAll(() => {
    const { stack, template: t } = synthApp();
    template = t.toJSON() as CfnTemplate;
    const id = (c: { node: { defaultChild?: unknown } }) => stack.getLogicalId(c.node.defaultChild as never);
    ids = {
      archiver: id(stack.archiver.fn),
      fanout: id(stack.fanout.fn),
      verifyJob: id(stack.verifyJob.fn),
      snapshots: id(stack.snapshots.fn),
    };
  });

  it("is named by each engine function's template environment, and copied where that name points", () => {
    for (const fn of [ids.archiver, ids.fanout, ids.verifyJob])
      expect(templateVariables(template, fn).AWS_LAMBDA_EXEC_WRAPPER, fn).toBe(ENGINE_EXEC_WRAPPER.path);
    // A function that walks no API starts as the runtime starts it.
    expect(templateVariables(template, ids.snapshots).AWS_LAMBDA_EXEC_WRAPPER).toBeUndefined();
    // The bundling copies the script into the package's root, which Lambda unpacks at /var/task.
    expect(ENGINE_EXEC_WRAPPER.path).toBe(`/var/task/${ENGINE_EXEC_WRAPPER.file}`);
    const copy = ENGINE_BUNDLING.commandHooks?.afterBundling('/in', '/out') ?? [];
    expect(copy).toEqual([
      `cp "/in/infra/bundling/${ENGINE_EXEC_WRAPPER.file}" "/out/${ENGINE_EXEC_WRAPPER.file}"`,
    ]);
    expect(ENGINE_EXEC_WRAPPER.source.endsWith(`/infra/bundling/${ENGINE_EXEC_WRAPPER.file}`)).toBe(true);
    // Lambda executes it: the checkout's copy is executable (git keeps the mode, the asset's zip too).
    accessSync(ENGINE_EXEC_WRAPPER.source, constants.X_OK);
    expect(readFileSync(ENGINE_EXEC_WRAPPER.source, 'utf8').startsWith('#!/bin/sh\n')).toBe(true);
  });

  it("starts the Node it is given with the runtime's arguments untouched, and exits as that Node exits", () => {
    const out = throughWrapper(
      'console.log(JSON.stringify({ execArgv: process.execArgv, argv: process.argv.slice(1) }))',
      ['a b', '', '$HOME', '--not-a-node-flag'],
    );
    expect(out.status, out.stderr).toBe(0);
    const { execArgv, argv } = JSON.parse(out.stdout) as { execArgv: string[]; argv: string[] };
    expect(argv).toEqual(['a b', '', '$HOME', '--not-a-node-flag']);
    // The runtime's own flags, in their order, after the wrapper's.
    const runtimeFlags = lambdaNodeFlags(ENGINE_MEMORY_MIB);
    const at = execArgv.indexOf(runtimeFlags[0] as string);
    expect(at).toBeGreaterThan(0);
    expect(execArgv.slice(at, at + runtimeFlags.length)).toEqual(runtimeFlags);
    expect(throughWrapper('process.exit(3)').status).toBe(3);
    // A Node that refuses its arguments fails the start, as Lambda then reports the init failed.
    expect(spawnSync(ENGINE_EXEC_WRAPPER.source, [LAMBDA_NODE, '--no-such-flag', '-e', '1']).status).not.toBe(
      0,
    );
  });

  it('keeps V8 on the main thread: an allocating, optimising workload spends no CPU on other threads', () => {
    // Objects allocated and dropped (scavenges, then major collections) by functions hot enough to optimise.
    const script = `
      const all0 = process.cpuUsage(); const main0 = process.threadCpuUsage();
      const make = (i) => ({ a: i, b: String(i) + 'x', c: [i, i * 2, { d: i }] });
      const kept = [];
      for (let r = 0; r < 12; r++) {
        const rows = [];
        for (let i = 0; i < 100000; i++) rows.push(make(i));
        kept.push(rows); if (kept.length > 4) kept.shift();
        JSON.parse(JSON.stringify(rows.slice(0, 20000)));
      }
      const all = process.cpuUsage(all0); const main = process.threadCpuUsage(main0);
      console.log(JSON.stringify({ all: (all.user + all.system) / 1000, main: (main.user + main.system) / 1000 }));`;
    const out = throughWrapper(script);
    expect(out.status, out.stderr).toBe(0);
    const { all, main } = JSON.parse(out.stdout) as { all: number; main: number };
    expect(all).toBeGreaterThan(100);
    // Started without the wrapper, the same workload spent 15–20% of its CPU on V8's helper threads.
    expect(all - main).toBeLessThanOrEqual(all * 0.02 + 5);
    // And the process was started as Lambda starts it: the runtime's flags took effect (gc exposed).
    expect(
      execFileSync(ENGINE_EXEC_WRAPPER.source, [LAMBDA_NODE, '--expose-gc', '-p', 'typeof gc'], {
        encoding: 'utf8',
      }).trim(),
    ).toBe('function');
  });
});
