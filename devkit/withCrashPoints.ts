import type { StateStore } from '../lib/archive/state/statePorts.ts';
import type { ObjectStore } from '../lib/archive/store/objectStore.ts';
import type { UpstreamApi } from '../lib/archive/upstream/upstreamApi.ts';

/** The steps of a run a crash test can stop after: a page fetched, a file staged, a manifest written, a file published, a digest written. */
export type CrashPhase = 'walk' | 'upload' | 'commit' | 'publish' | 'digest';

/** Which call of which port is a step of which phase. */
const STEPS: { phase: CrashPhase; port: 'api' | 'objects' | 'state'; method: string; key?: RegExp }[] = [
  { phase: 'walk', port: 'api', method: 'historyPage' },
  { phase: 'upload', port: 'objects', method: 'putFile', key: /^_staging\// },
  { phase: 'upload', port: 'objects', method: 'put', key: /^_staging\// },
  { phase: 'commit', port: 'state', method: 'putPartition' },
  { phase: 'publish', port: 'objects', method: 'publish' },
  { phase: 'digest', port: 'objects', method: 'putIfAbsent', key: /^digests\/\d{10}\.json$/ },
];

/** A crash point as written: `PHASE:N`, the Nth step (from 1) of one phase. */
export const CRASH_POINT = /^(walk|upload|commit|publish|digest):[1-9]\d*$/;

/**
 * Deterministic crash points for recovery tests (`PHASE:N`): the run's ports are wrapped so that the
 * process SIGKILLs itself right after the Nth step of that phase has completed (the write applied, its
 * caller never told): a crash at a known place, where a timer would land anywhere. The CLI runs with
 * them only through the dev kit's entry (devkit/crashPointCli.js), which hands this to the CLI's main
 * as its ports hook.
 */
export function withCrashPoints<T extends { api: UpstreamApi; objects: ObjectStore; state: StateStore }>(
  ports: T,
  crashAt: string,
  kill: () => void = () => process.kill(process.pid, 'SIGKILL'),
): T {
  const [phase, n] = crashAt.split(':') as [CrashPhase, string];
  let seen = 0;
  const wrap = <P extends object>(port: P, name: 'api' | 'objects' | 'state'): P =>
    new Proxy(port, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        const step = STEPS.find((s) => s.port === name && s.method === property && s.phase === phase);
        if (typeof value !== 'function') return value;
        if (step === undefined) return (value as (...a: unknown[]) => unknown).bind(target);
        return async (...args: unknown[]) => {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (step.key === undefined || step.key.test(String(args[0]))) {
            seen++;
            if (seen === Number(n)) kill();
          }
          return result;
        };
      },
    });
  return {
    ...ports,
    api: wrap(ports.api, 'api'),
    objects: wrap(ports.objects, 'objects'),
    state: wrap(ports.state, 'state'),
  };
}
