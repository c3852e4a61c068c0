import * as z from 'zod';
import { ArchiverError } from '../../foundation/index.ts';
import { Rng, seedFrom } from './prng.ts';

export type RetryAfterStyle = 'seconds' | 'http-date' | 'none';
/** `cut`: Content-Length promises more, the body stops mid-JSON, the socket dies. `invalid-json`: complete but unparsable. */
export type TruncateVariant = 'cut' | 'invalid-json' | 'mixed';

/** What can go wrong, all off by default. Probabilities are per request, drawn from a seeded stream. */
export interface FaultConfig {
  rate429: number;
  retryAfter: RetryAfterStyle;
  retryAfterSeconds: number;
  /** 500/502/503 with HTML bodies. */
  rate5xx: number;
  /** Every request gets 503 until `untilMs` (epoch ms, REAL time). */
  outage: { untilMs: number } | null;
  /** Destroy the socket without a response. */
  rateReset: number;
  rateTruncate: number;
  truncateVariant: TruncateVariant;
  /** Real milliseconds to wait before answering. */
  delayMs: number;
  /** Off: a new permutation per request (what the real service does). On: one fixed arbitrary order. */
  stableOrder: boolean;
  /** Each history request releases this many late-ingested rows of the queried days. */
  driftInsertPerRequest: number;
  /** Seed of the fault stream; defaults to the emulator's data seed. */
  seed: string | number | null;
}

export const NO_FAULTS: FaultConfig = {
  rate429: 0,
  retryAfter: 'seconds',
  retryAfterSeconds: 1,
  rate5xx: 0,
  outage: null,
  rateReset: 0,
  rateTruncate: 0,
  truncateVariant: 'mixed',
  delayMs: 0,
  stableOrder: false,
  driftInsertPerRequest: 0,
  seed: null,
};

const probability = z.number().min(0).max(1);
const count = z.number().int().min(0);
const faultSchema = z.strictObject({
  rate429: probability,
  retryAfter: z.enum(['seconds', 'http-date', 'none']),
  retryAfterSeconds: count,
  rate5xx: probability,
  outage: z.object({ untilMs: z.number() }).nullable(),
  rateReset: probability,
  rateTruncate: probability,
  truncateVariant: z.enum(['cut', 'invalid-json', 'mixed']),
  delayMs: count,
  stableOrder: z.boolean(),
  driftInsertPerRequest: count,
  seed: z.union([z.string(), z.number()]).nullable(),
});

/** Fills defaults and validates; a bad value is a CONFIG_INVALID error naming the field. */
export function resolveFaults(partial: Partial<FaultConfig> = {}): FaultConfig {
  const parsed = faultSchema.safeParse({ ...NO_FAULTS, ...partial });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ArchiverError(
      'CONFIG_INVALID',
      `invalid fault config: ${issue?.path.join('.')}: ${issue?.message}`,
      {
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}

/** `{ outage: { untilMs } }` for an outage of `ms` real milliseconds starting at `wallNowMs`. */
export function outageFor(ms: number, wallNowMs: number = Date.now()): Pick<FaultConfig, 'outage'> {
  return { outage: { untilMs: wallNowMs + ms } };
}

/** The fault chosen for one request, before routing. */
export type FaultDecision =
  | { kind: 'none' }
  | { kind: 'outage'; retryAfterSeconds: number }
  | { kind: '429' }
  | { kind: '5xx'; status: 500 | 502 | 503 }
  | { kind: 'reset' };

/** Draws fault decisions from a seeded stream, so a test that sends the same requests sees the same faults. */
export class FaultInjector {
  #config: FaultConfig = NO_FAULTS;
  #rng = new Rng(0);
  readonly #defaultSeed: string | number;

  constructor(defaultSeed: string | number, config: Partial<FaultConfig> = {}) {
    this.#defaultSeed = defaultSeed;
    this.set(config);
  }

  get config(): FaultConfig {
    return this.#config;
  }

  /** Replaces the whole config (omitted fields go back to off) and restarts the random stream. */
  set(partial: Partial<FaultConfig>): void {
    this.#config = resolveFaults(partial);
    this.#rng = new Rng(seedFrom(this.#config.seed ?? this.#defaultSeed, 'faults'));
  }

  /** One decision per request; draws a fixed number of values so streams stay aligned. */
  decide(wallNowMs: number): FaultDecision {
    const c = this.#config;
    const [u429, u5xx, uReset, uPick] = [
      this.#rng.next(),
      this.#rng.next(),
      this.#rng.next(),
      this.#rng.next(),
    ];
    if (c.outage && wallNowMs < c.outage.untilMs) {
      return {
        kind: 'outage',
        retryAfterSeconds: Math.max(1, Math.ceil((c.outage.untilMs - wallNowMs) / 1000)),
      };
    }
    if (u429 < c.rate429) return { kind: '429' };
    if (u5xx < c.rate5xx) return { kind: '5xx', status: ([500, 502, 503] as const)[Math.floor(uPick * 3)]! };
    if (uReset < c.rateReset) return { kind: 'reset' };
    return { kind: 'none' };
  }

  /** Whether to spoil a 200 body, and how. */
  truncate(): 'cut' | 'invalid-json' | null {
    const [u, v] = [this.#rng.next(), this.#rng.next()];
    if (!(u < this.#config.rateTruncate)) return null;
    const variant = this.#config.truncateVariant;
    if (variant !== 'mixed') return variant;
    return v < 0.5 ? 'cut' : 'invalid-json';
  }

  /** A fresh seed for one request's shuffle, from the same stream. */
  shuffleSeed(): number {
    return Math.floor(this.#rng.next() * 4_294_967_296);
  }
}
