import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AWS_CALL_LOG_ENV, AWS_CALL_LOG_PRELOAD, type RecordedCall } from '../awsCallLog.ts';
import { ignoreClosedPipe } from '../ignoreClosedPipe.ts';
import { LAMBDA_NODE, RUN_TS } from '../lambdaNode.ts';
import type { ContainerConfig, ContainerReply, InvocationLine } from './functionContainer.ts';

const CONTAINER = fileURLToPath(new URL('./functionContainer.ts', import.meta.url));

/** What one invocation (or one execution of a state machine) did. */
export interface Invocation extends ContainerReply {
  /** The AWS calls the bundle made, as devkit/awsCallLog.ts records them. */
  calls: RecordedCall[];
  /** Its log lines (EMF metrics among them). */
  logs: string[];
}

export interface Container {
  functionId: string;
  /** One invocation of the handler at the simulated instant `at`. */
  invoke(at: Date, event: unknown): Promise<Invocation>;
  /** One execution of the container's state machine, its tasks invoking this function. */
  execute(at: Date, input: unknown, name: string): Promise<Invocation>;
  close(): Promise<void>;
}

/**
 * Starts one warm container of a function's bundle (functionContainer.ts) under the Lambda's Node, with
 * `env` as its whole environment (the template's, the runtime's and the stand-ins' endpoints), the dev
 * kit's AWS call log preloaded, its own temp folder `dir`. A bundle whose init fails rejects the next
 * invocation with the function's logical id and its stderr.
 */
export function startContainer(opts: {
  functionId: string;
  config: ContainerConfig;
  env: Record<string, string>;
  dir: string;
  cwd: string;
}): Container {
  const configFile = join(opts.dir, 'container.json');
  const callLog = join(opts.dir, 'calls.jsonl');
  writeFileSync(configFile, JSON.stringify(opts.config));
  const child: ChildProcess = spawn(LAMBDA_NODE, [RUN_TS, CONTAINER, configFile], {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH ?? '',
      ...opts.env,
      NODE_OPTIONS: `--enable-source-maps --import ${AWS_CALL_LOG_PRELOAD}`,
      TMPDIR: opts.dir,
      [AWS_CALL_LOG_ENV]: callLog,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A container that dies while an event is written: its exit rejects the invocation, not the write's EPIPE.
  ignoreClosedPipe(child.stdin);
  let stderr = '';
  let buffered = '';
  let logs: string[] = [];
  let callsRead = 0;
  let n = 0;
  let pending: { resolve(r: Invocation): void; reject(e: Error): void } | undefined;
  let exited: Error | undefined;
  const died = (why: string) =>
    new Error(
      `${opts.functionId}: the bundle failed with its template environment: ${why}\n${stderr.slice(-2000)}`,
    );
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-20_000);
  });
  child.stdout?.on('data', (d: Buffer) => {
    buffered += d.toString();
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      if (!line.startsWith('@@REPLY ')) {
        if (line !== '') logs.push(line);
        continue;
      }
      const reply = JSON.parse(line.slice('@@REPLY '.length)) as ContainerReply;
      const all = existsSync(callLog)
        ? readFileSync(callLog, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [];
      const calls = all.slice(callsRead).map((l) => JSON.parse(l) as RecordedCall);
      callsRead = all.length;
      const done = pending;
      pending = undefined;
      done?.resolve({ ...reply, calls, logs });
      logs = [];
    }
  });
  const gone = new Promise<void>((resolve) => {
    const end = (why: string) => {
      exited ??= died(why);
      pending?.reject(exited);
      pending = undefined;
      resolve();
    };
    child.on('exit', (code, signal) => end(`exited (${code ?? signal})`));
    // A Node that cannot be started (tools/lambda-node missing) never exits: it fails to spawn.
    child.on('error', (error) => end(`could not start ${LAMBDA_NODE}: ${error.message}`));
  });
  const sendNow = (kind: InvocationLine['kind'], at: Date, input: unknown, name?: string) =>
    new Promise<Invocation>((resolve, reject) => {
      if (exited) return reject(exited);
      pending = { resolve, reject };
      const line: InvocationLine = { n: ++n, at: at.getTime(), kind, input, ...(name ? { name } : {}) };
      child.stdin?.write(`${JSON.stringify(line)}\n`);
    });
  // One event at a time, as one container takes them: two rules due at once for one function queue here.
  let queue: Promise<unknown> = Promise.resolve();
  const send = (kind: InvocationLine['kind'], at: Date, input: unknown, name?: string) => {
    const next = queue.then(() => sendNow(kind, at, input, name));
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    functionId: opts.functionId,
    invoke: (at, event) => send('invoke', at, event),
    execute: (at, input, name) => send('execute', at, input, name),
    close: async () => {
      child.stdin?.end();
      await gone;
    },
  };
}
