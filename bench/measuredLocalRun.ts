import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMULATOR_PAID_KEY } from '../devkit/startEmulator.ts';
import { archiveOptionsFromConfig } from '../lib/archive/config/archiveOptionsFromConfig.ts';
import { loadConfig } from '../lib/archive/config/loadConfig.ts';
import { loadLocalKeys } from '../lib/archive/keys/loadLocalKeys.ts';
import { runArchive } from '../lib/archive/run/runArchive.ts';
import type { ArchiveOptions, RunSummary } from '../lib/archive/run/runTypes.ts';
import { openLocalState } from '../lib/archive/state/openLocalState.ts';
import { createFileObjectStore } from '../lib/archive/store/fileObjectStore.ts';
import { createTunnelApiClient } from '../lib/archive/upstream/createTunnelApiClient.ts';
import { systemClock } from '../lib/foundation/clock/clock.ts';
import { silentLogger } from '../lib/foundation/log/logger.ts';
import { cpuSecondsSince } from './cpuSeconds.ts';

export interface MeasuredRun {
  summary: RunSummary;
  seconds: number;
  /** CPU time (user + system, all threads of the process) the run took. */
  cpuSeconds: number;
  baselineRssMiB: number;
  peakRssMiB: number;
  /** Where the sampled peak's memory was (MiB): V8 heap committed and used, external and ArrayBuffers. */
  atPeak: { seconds: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
}

/**
 * One archiving run as local mode does it (temp folder, state in item files), against
 * `baseUrl`, with config from `env`; measures wall time and peak RSS (sampled every 20 ms).
 */
export async function measuredLocalRun(
  baseUrl: string,
  env: Record<string, string | undefined>,
  extra: Partial<ArchiveOptions> = {},
  /** Looks at the finished archive folder before it is removed. */
  inspectArchive?: (archiveDir: string) => Promise<void>,
  /** The folder of an archive to run on again (the caller removes it); else a new temp folder, removed after. */
  folder?: string,
): Promise<MeasuredRun> {
  const dir = folder ?? (await mkdtemp(join(tmpdir(), 'ta-bench-')));
  // Local mode's state, as the CLI opens it: item files in the state folder.
  const local = await openLocalState(join(dir, '.state'));
  const api = createTunnelApiClient({ baseUrl, apiKey: EMULATOR_PAID_KEY });
  try {
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    let atPeak = process.memoryUsage();
    let peakAt = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    // The RSS alone each tick (one read of the kernel's figure); the heap's breakdown, which walks V8's
    // spaces and cost the run's own thread 0.16 s in a 1M backfill's profile, only when the peak rises.
    const sampler = setInterval(() => {
      const rss = process.memoryUsage.rss();
      if (rss > peak) {
        peak = rss;
        atPeak = process.memoryUsage();
        peakAt = (performance.now() - t0) / 1000;
      }
    }, 20);
    try {
      const summary = await runArchive(
        {
          api,
          objects: createFileObjectStore(join(dir, 'archive')),
          state: local.state,
          clock: systemClock,
          logger: silentLogger,
          ...(await loadLocalKeys(join(dir, 'keys'))),
        },
        // Its own temp folder: other processes on this machine may sweep shared /tmp leftovers.
        archiveOptionsFromConfig(loadConfig({ env }), { tmpDir: join(dir, 'tmp'), ...extra }),
      );
      return {
        summary,
        seconds: (performance.now() - t0) / 1000,
        cpuSeconds: cpuSecondsSince(cpu0),
        baselineRssMiB: Math.round(baseline / 1_048_576),
        peakRssMiB: Math.round(peak / 1_048_576),
        atPeak: {
          seconds: Math.round(peakAt * 10) / 10,
          heapTotal: Math.round(atPeak.heapTotal / 1_048_576),
          heapUsed: Math.round(atPeak.heapUsed / 1_048_576),
          external: Math.round(atPeak.external / 1_048_576),
          arrayBuffers: Math.round(atPeak.arrayBuffers / 1_048_576),
        },
      };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await api.close();
    await local.close();
    try {
      await inspectArchive?.(join(dir, 'archive'));
    } finally {
      if (folder === undefined) await rm(dir, { recursive: true, force: true });
    }
  }
}
