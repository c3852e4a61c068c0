import type { Config } from '../../lib/archive/config/loadConfig.ts';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import type { ArchiveDeps, ArchiveOptions, RunSummary } from '../../lib/archive/run/runTypes.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import type { Logger } from '../../lib/foundation/log/logger.ts';
import type { ChecksumJobs } from '../../lib/integrity/verify/checksumJobs.ts';
import type { VerifyResult } from '../../lib/integrity/verify/verifyTypes.ts';
import type {
  WeeklyVerifyDeps,
  WeeklyVerifyOptions,
  WeeklyVerifyResult,
} from '../../lib/integrity/verify/verifyWeekly.ts';

/** Port: where counts go. Powertools `Metrics` satisfies it. */
export interface MetricsSink {
  addMetric(name: string, unit: 'Count', value: number): unknown;
  publishStoredMetrics(): unknown;
}

/** The part of Lambda's context the handler uses. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

export interface ArchiveHandlerDeps {
  config: Config;
  objects: ObjectStore;
  state: StateStore;
  clock: Clock;
  logger: Logger;
  metrics: MetricsSink;
  /** The API key, read per invocation (cached with a short TTL by the caller). */
  getApiKey(): Promise<string>;
  createApi(apiKey: string): UpstreamApi & { close(): Promise<void> };
  /** The engine; injectable so the handler's own behaviour is testable without it. */
  run?: (deps: ArchiveDeps, options: ArchiveOptions) => Promise<RunSummary>;
  /** Token HMAC key and digest signer, loaded once per container; handed to the engine with its deps. */
  getKeys: () => Promise<{ tokenKey: Uint8Array; signer: DigestSigner }>;
  /** Store-side checksum jobs for the weekly verify (S3 Batch Operations); absent, it lists and rotates itself. */
  checksumJobs?: ChecksumJobs;
  /** The weekly verifier; injectable like `run`. */
  verify?: (
    deps: WeeklyVerifyDeps,
    options: WeeklyVerifyOptions,
  ) => Promise<VerifyResult | WeeklyVerifyResult>;
  /** Writes `reports/index.html` after a verify; injectable like `run` (default: `publishReport`, loaded then). */
  publishReport?: PublishReport;
}

export type PublishReport = typeof import('../../lib/integrity/report/publishReport.ts').publishReport;
