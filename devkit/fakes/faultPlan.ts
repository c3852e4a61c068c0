import { Rng, seedFrom } from '../../lib/archive/emulator/prng.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

/**
 * Deterministic fault injection for the in-memory port fakes, so every recovery branch has a
 * deterministic test. One plan can be shared by several fakes: they then share one global step counter,
 * so "crash after step N" means the N-th store call of the whole process, whichever store it hit.
 *
 * - `lostResponse`: the operation is APPLIED, then the caller gets an error. With `mode: 'unknown'`
 *   (default) it is `STORE_FAILED` with `details.outcomeUnknown = true`. With `mode: 'retry'` the fake
 *   replays the call once against the already-changed store, as the AWS SDK does after a lost
 *   response: a conditional put then fails with `CONFLICT` (a lease acquire settles it by re-reading), an
 *   idempotent call succeeds.
 * - `fail`: not applied; `STORE_FAILED` (outcome known: nothing happened).
 * - `crashAfter(N)`: calls 1..N run, every later call throws {@link SimulatedCrash} without touching the
 *   store, modelling a process killed at that instant. `revive()` lets a new "process" use the stores.
 */
export type FaultKind = 'lostResponse' | 'fail';

/** One store call, as the plan sees it. */
export interface FaultCall {
  /** Which fake: `state` or `object` (or a custom label given to the fake). */
  store: string;
  /** Method name: `putPartition`, `publish`, `acquireLease`, `list`... */
  op: string;
  /** 1-based count of calls of this `store`/`op` pair so far, this one included. */
  n: number;
  /** 1-based global step (all stores sharing the plan). */
  step: number;
  args: readonly unknown[];
}

export interface FaultRule {
  fault: FaultKind;
  /** Method name, or `*` for any. */
  op?: string;
  /** Restrict to one fake (`state` / `object`). */
  store?: string;
  /** Fire on these call numbers of the op (1-based, see {@link FaultCall.n}). */
  call?: number | readonly number[];
  /** Fire on these global steps (1-based, see {@link FaultCall.step}): for generated schedules. */
  step?: number | readonly number[];
  /** Fire when this returns true. Combined with `op`/`store`/`call` (all must match). */
  when?: (call: FaultCall) => boolean;
  /** Fire with this probability (seeded by the plan's seed): for random schedules. */
  probability?: number;
  /** Fire at most this many times. */
  times?: number;
  /** For `lostResponse`: report an unknown outcome (default) or replay the call like an SDK retry. */
  mode?: 'unknown' | 'retry';
}

/** What happened to one call; `plan.log` keeps them in order. */
export interface FaultEvent {
  step: number;
  store: string;
  op: string;
  n: number;
  outcome: 'ok' | 'error' | FaultKind | 'crash';
}

/** The process "died" here: nothing after this instant happened. A distinct class so no recovery code catches it by code. */
export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
  readonly step: number;

  constructor(step: number, op: string) {
    super(`simulated crash: the process died before step ${step} (${op})`);
    this.step = step;
  }
}

/** A generated fault schedule (see {@link FaultPlan.fromSchedule}). */
export interface FaultSchedule {
  faults: { step: number; fault: FaultKind; mode?: 'unknown' | 'retry'; op?: string }[];
  crashAfter?: number;
}

export interface FaultPlanOptions {
  rules?: FaultRule[];
  /** Calls 1..N run; every later one throws {@link SimulatedCrash}. */
  crashAfter?: number;
  /** Seed of the `probability` draws. */
  seed?: number | string;
}

export class FaultPlan {
  readonly #rules: { rule: FaultRule; fired: number }[] = [];
  readonly #counts = new Map<string, number>();
  #crashAfter: number | undefined;
  #step = 0;
  #crashed = false;
  #rng: Rng;
  /** Every call seen, in order, with its outcome. */
  readonly log: FaultEvent[] = [];

  constructor(options: FaultPlanOptions = {}) {
    for (const rule of options.rules ?? []) this.add(rule);
    this.#crashAfter = options.crashAfter;
    this.#rng = new Rng(seedFrom(options.seed ?? 1, 'fault-plan'));
  }

  /** A plan that injects nothing (still counts steps and keeps the log). */
  static none(): FaultPlan {
    return new FaultPlan();
  }

  /**
   * A plan from a schedule keyed by global step, as a property test generates it: each entry injects
   * its fault at that step (restricted to `op` if given); `crashAfter` ends the process there.
   */
  static fromSchedule(schedule: FaultSchedule): FaultPlan {
    const plan = new FaultPlan(schedule.crashAfter === undefined ? {} : { crashAfter: schedule.crashAfter });
    for (const entry of schedule.faults) {
      plan.add({
        fault: entry.fault,
        step: entry.step,
        times: 1,
        ...(entry.op === undefined ? {} : { op: entry.op }),
        ...(entry.mode === undefined ? {} : { mode: entry.mode }),
      });
    }
    return plan;
  }

  add(rule: FaultRule): this {
    if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
      throw new RangeError(`fault probability must be in 0..1, got ${rule.probability}`);
    }
    this.#rules.push({ rule, fired: 0 });
    return this;
  }

  /** Sets (or clears, with `undefined`) the crash point, counted in global steps from the start. */
  crashAfter(step: number | undefined): this {
    this.#crashAfter = step;
    return this;
  }

  /** Global steps taken so far (calls that reached the plan, crashed ones excluded). */
  get steps(): number {
    return this.#step;
  }

  /** Whether a {@link SimulatedCrash} was thrown since the last `revive`. */
  get crashed(): boolean {
    return this.#crashed;
  }

  /** A new process starts: the crash point and the crashed flag are cleared; rules and counters stay. */
  revive(): this {
    this.#crashAfter = undefined;
    this.#crashed = false;
    return this;
  }

  /** Removes every rule (the crash point stays). */
  clearRules(): this {
    this.#rules.length = 0;
    return this;
  }

  /** Calls of `store`/`op` so far. */
  count(store: string, op: string): number {
    return this.#counts.get(`${store}\u0000${op}`) ?? 0;
  }

  /**
   * Runs one store operation under the plan. `apply` performs it on the fake; with a `lostResponse`
   * in `retry` mode it is called a second time, like the SDK's retry of a request whose answer was lost.
   */
  async run<T>(store: string, op: string, args: readonly unknown[], apply: () => Promise<T>): Promise<T> {
    if (this.#crashed || (this.#crashAfter !== undefined && this.#step >= this.#crashAfter)) {
      this.#crashed = true;
      this.log.push({ step: this.#step + 1, store, op, n: this.count(store, op) + 1, outcome: 'crash' });
      throw new SimulatedCrash(this.#step + 1, `${store}.${op}`);
    }
    const step = ++this.#step;
    const countKey = `${store}\u0000${op}`;
    const n = (this.#counts.get(countKey) ?? 0) + 1;
    this.#counts.set(countKey, n);
    const call: FaultCall = { store, op, n, step, args };
    const rule = this.#match(call);
    const event: FaultEvent = { step, store, op, n, outcome: 'ok' };
    this.log.push(event);
    if (rule?.fault === 'fail') {
      event.outcome = 'fail';
      throw new ArchiverError(
        'STORE_FAILED',
        `injected failure of ${store}.${op} (step ${step}): not applied`,
        {
          details: { injected: 'fail', step, outcomeUnknown: false },
        },
      );
    }
    let result: T;
    try {
      result = await apply();
    } catch (error) {
      event.outcome = 'error';
      throw error;
    }
    if (rule?.fault !== 'lostResponse') return result;
    event.outcome = 'lostResponse';
    if (rule.mode === 'retry') return apply();
    throw new ArchiverError(
      'STORE_FAILED',
      `injected lost response of ${store}.${op} (step ${step}): the call was applied, its answer lost`,
      { details: { injected: 'lostResponse', step, outcomeUnknown: true } },
    );
  }

  #match(call: FaultCall): FaultRule | undefined {
    for (const entry of this.#rules) {
      const { rule } = entry;
      if (rule.times !== undefined && entry.fired >= rule.times) continue;
      if (rule.op !== undefined && rule.op !== '*' && rule.op !== call.op) continue;
      if (rule.store !== undefined && rule.store !== call.store) continue;
      if (rule.call !== undefined) {
        const calls = typeof rule.call === 'number' ? [rule.call] : rule.call;
        if (!calls.includes(call.n)) continue;
      }
      if (rule.step !== undefined) {
        const steps = typeof rule.step === 'number' ? [rule.step] : rule.step;
        if (!steps.includes(call.step)) continue;
      }
      if (rule.when !== undefined && !rule.when(call)) continue;
      if (rule.probability !== undefined && !(this.#rng.next() < rule.probability)) continue;
      entry.fired++;
      return rule;
    }
    return undefined;
  }
}

/** Whether an error says the outcome of the call is unknown (it may have been applied). */
export function isOutcomeUnknown(error: unknown): boolean {
  return ArchiverError.is(error, 'STORE_FAILED') && error.details?.outcomeUnknown === true;
}
