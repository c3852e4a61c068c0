import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { addDays, toDay } from '../../lib/foundation/clock/day.ts';
import { deadlineBudget } from '../../lib/foundation/clock/deadlineBudget.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import {
  archivedIds,
  diffArchive,
  duckdb,
  SCENARIO_START,
  TEST_OPTIONS,
  TEST_TOKEN_KEY,
  truthIds,
  windowDays,
  worldPerTest,
} from '../support/engineKit.ts';
import { seededRandom, testSeed } from '../support/testSeed.ts';

const worlds = worldPerTest();

describe('runArchive', () => {
  it('archives the whole window exactly once, and a second run adds nothing', async () => {
    const world = await worlds.open();
    const first = await runArchive(world.deps(), TEST_OPTIONS);
    const days = windowDays(toDay(world.clock.now()));
    expect(first.daysScanned).toBe(60);
    expect(first.shortfalls).toEqual([]);
    const truth = truthIds(world, days);
    const expectedTotal = [...truth.values()].reduce((a, s) => a + s.size, 0);
    expect(first.recordsNew).toBe(expectedTotal);
    const archive = await archivedIds(world.objects);
    expect(diffArchive(archive.byDt, truth)).toEqual([]);
    expect(archive.total).toBe(expectedTotal);

    // Every archiving run also snapshots the active list through the same committer.
    expect(first.active).toMatchObject({ listed: world.emulator.active().length });
    expect(first.active?.rows).toBe(world.emulator.active().length); // all `seen`
    expect(first.active?.longSessions).toBeGreaterThan(0); // the emulator keeps tunnels open for > 60 days
    const activeFiles: string[] = [];
    for await (const o of world.objects.list('active/')) activeFiles.push(o.key);
    expect(activeFiles.length).toBeGreaterThan(0);
    expect((await world.state.listPartitions()).some((m) => m.dataset === 'active')).toBe(true);

    const second = await runArchive(world.deps(), TEST_OPTIONS);
    expect(second.daysPlanned).toBe(0);
    expect(second.recordsNew).toBe(0);
    expect(second.active).toMatchObject({ rows: 0 }); // nothing changed in between

    // An independent reader agrees: DuckDB counts every row once, typed as the public contract says.
    const glob = join(world.dir, 'archive', 'history', '*', '*.parquet');
    const [counts] = await duckdb(
      `SELECT count(*)::INT AS n, count(DISTINCT record_id)::INT AS d FROM read_parquet('${glob}', hive_partitioning = true)`,
    );
    expect(counts).toEqual({ n: expectedTotal, d: expectedTotal });
    const types = Object.fromEntries(
      (await duckdb(`DESCRIBE SELECT * FROM read_parquet('${glob}', hive_partitioning = true)`)).map((r) => [
        r.column_name,
        r.column_type,
      ]),
    );
    expect(types).toMatchObject({
      record_id: 'VARCHAR',
      domains: 'VARCHAR[]',
      port: 'INTEGER',
      client_port: 'INTEGER',
    });
    expect(String(types.start_time)).toMatch(/^TIMESTAMP/);
    const [tokens] = await duckdb(
      `SELECT count(token_value)::INT AS raw, count(token_hmac)::INT AS hashed FROM read_parquet('${glob}', hive_partitioning = true)`,
    );
    expect(tokens?.raw).toBe(0);
    expect(Number(tokens?.hashed)).toBeGreaterThan(0);
    // Partition value = UTC day of start_time, for every row.
    const [mismatch] = await duckdb(
      `SELECT count(*)::INT AS n FROM read_parquet('${glob}', hive_partitioning = true) WHERE strftime(start_time AT TIME ZONE 'UTC', '%Y-%m-%d') <> CAST(dt AS VARCHAR)`,
    );
    expect(mismatch?.n).toBe(0);
  });

  it('stays exact over 75 daily runs with late arrivals, missed runs, 429s, 5xx, resets and truncated bodies', async () => {
    const world = await worlds.open({
      faults: {
        rate429: 0.03,
        retryAfter: 'none',
        rate5xx: 0.03,
        rateReset: 0.02,
        rateTruncate: 0.02,
        truncateVariant: 'mixed',
      },
    });
    const sealedAt = new Map<string, Set<string>>();
    const gaps: string[] = [];
    const missedLastChance: string[] = [];
    let totalNew = 0;
    for (let i = 0; i < 75; i++) {
      world.clock.set(new Date(Date.parse(SCENARIO_START) + i * 86_400_000));
      if (i % 11 === 5) {
        // A missed run: the next one catches up, except for the day whose last queryable day it was.
        const lastChance = addDays(toDay(world.clock.now()), -59);
        if (lastChance >= addDays(toDay(new Date(SCENARIO_START)), -59)) missedLastChance.push(lastChance);
        continue;
      }
      const summary: RunSummary = await runArchive(world.deps(), TEST_OPTIONS);
      totalNew += summary.recordsNew;
      expect(summary.shortfalls).toEqual([]);
      expect(summary.failedDays).toEqual([]);
      gaps.push(...summary.gaps);
      const scanned = summary.days.map((d) => d.day);
      const archive = await archivedIds(world.objects);
      // Every day scanned now holds exactly what the API exposes now: late arrivals included, nothing twice.
      expect(diffArchive(archive.byDt, truthIds(world, scanned)), `run ${i}`).toEqual([]);
      for (const d of summary.days.filter((x) => x.sealed))
        sealedAt.set(d.day, new Set(archive.byDt.get(d.day)));
      expect(archive.total).toBe(archive.distinct);
    }
    // Days that left the window were sealed and never changed afterwards; the only gaps are the days whose
    // last queryable day fell on a missed run (their age-58 sweep is archived, but it was not the last).
    expect(gaps.sort()).toEqual(
      missedLastChance.filter((d) => d < addDays(toDay(world?.clock.now() ?? new Date()), -59)).sort(),
    );
    const final = await archivedIds(world.objects);
    expect(sealedAt.size).toBeGreaterThan(10);
    for (const [day, ids] of sealedAt) expect(new Set(final.byDt.get(day)), day).toEqual(ids);
    expect(final.total).toBe(totalNew);
    const stats = world.emulator.stats();
    expect(Object.values(stats.faultsInjected).reduce((a, b) => a + b, 0)).toBeGreaterThan(20);
  }, 300_000);

  it('lets only one of two overlapping runs write; the other fails with LEASE_HELD', async () => {
    const world = await worlds.open();
    const results = await Promise.allSettled([
      runArchive(world.deps(), TEST_OPTIONS),
      runArchive(world.deps(), TEST_OPTIONS),
    ]);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(ArchiverError.is((rejected[0] as PromiseRejectedResult).reason, 'LEASE_HELD')).toBe(true);
    const archive = await archivedIds(world.objects);
    expect(diffArchive(archive.byDt, truthIds(world, windowDays(toDay(world.clock.now()))))).toEqual([]);
  });

  it('never doubles a record even when leases expire under concurrent writers', async () => {
    const seed = testSeed();
    const world = await worlds.open();
    const w = world;
    const zombie = { ...TEST_OPTIONS, leaseTtlMs: 1_000 };
    w.clock.advance(0);
    // Three writers start one after another, each as soon as the previous one holds the lease; each one's
    // clock reads 2 s later than the last's (plus seeded jitter), so it finds that lease expired (TTL 1 s)
    // and takes it over while the previous writer is still running: three zombies writing at once.
    const random = seededRandom(seed);
    let running = 0;
    /** Leases taken while a writer that had taken one was still running: the takeovers. */
    const takeovers: { fence: number; whileRunning: number }[] = [];
    const writer = (i: number) => {
      const base = w.deps();
      let holding = false;
      let acquired!: () => void;
      const ready = new Promise<void>((resolve) => (acquired = resolve));
      const offset = i * 2_000 + Math.floor(random() * 500);
      const state = {
        ...base.state,
        async acquireLease(...args: Parameters<typeof base.state.acquireLease>) {
          const lease = await base.state.acquireLease(...args);
          if (lease) {
            if (running > 0) takeovers.push({ fence: lease.fence, whileRunning: running });
            running++;
            holding = true;
          }
          acquired();
          return lease;
        },
      };
      const deps = {
        ...base,
        state,
        clock: { now: () => new Date(w.clock.now().getTime() + offset), sleep: w.clock.sleep.bind(w.clock) },
      };
      const run = () =>
        runArchive(deps, zombie).finally(() => {
          if (holding) running--;
          holding = false;
          acquired();
        });
      return { run, ready };
    };
    const runs: Promise<unknown>[] = [];
    for (let i = 0; i < 3; i++) {
      const next = writer(i);
      runs.push(next.run());
      await next.ready;
    }
    const results = await Promise.allSettled(runs);
    // The scenario the test is named for happened: leases were taken from writers still running.
    expect(takeovers.length, `seed ${seed}: takeovers`).toBe(2);
    expect(takeovers.map((t) => t.fence)).toEqual([...takeovers.map((t) => t.fence)].sort((x, y) => x - y));
    for (const r of results)
      if (r.status === 'rejected')
        expect(ArchiverError.is(r.reason) && ['CONFLICT', 'LEASE_HELD'].includes(r.reason.code)).toBe(true);
    await runArchive(w.deps(), { ...TEST_OPTIONS, onlyDays: windowDays(toDay(w.clock.now())) });
    const archive = await archivedIds(w.objects);
    expect(archive.total).toBe(archive.distinct);
    expect(diffArchive(archive.byDt, truthIds(w, windowDays(toDay(w.clock.now()))))).toEqual([]);
  });

  it('stops starting days at the deadline and the next run finishes the rest', async () => {
    const w = await worlds.open();
    // Simulated time: every history request costs the run a minute; the deadline comes half an hour in.
    let spent = 0;
    const started = new Set<string>();
    const runClock = {
      now: () => new Date(w.clock.now().getTime() + spent),
      sleep: w.clock.sleep.bind(w.clock),
    };
    const budget = deadlineBudget(runClock, new Date(Date.parse(SCENARIO_START) + 30 * 60_000), 200);
    // Every day the run touches (any API request or state call that names it), before and after the
    // budget was spent: a day first touched after that was begun past the deadline.
    const due = new Set(windowDays(toDay(w.clock.now())));
    const touchedBefore = new Set<string>();
    const touchedAfter = new Set<string>();
    const touch = (args: unknown[]) => {
      const text = JSON.stringify(args, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) ?? '';
      for (const day of text.match(/\d{4}-\d{2}-\d{2}/g) ?? [])
        if (due.has(day)) (budget.spent() ? touchedAfter : touchedBefore).add(day);
    };
    const watched = <T extends object>(
      port: T,
      onCall?: (property: string | symbol, args: unknown[]) => void,
    ): T =>
      new Proxy(port, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            touch(args);
            onCall?.(property, args);
            return value.apply(target, args);
          };
        },
      });
    const api = watched(w.api, (property, args) => {
      if (property === 'historyPage') {
        spent += 60_000;
        started.add(String(args[0]));
      }
    });
    const deps = w.deps();
    const first = await runArchive(
      { ...deps, api, state: watched(deps.state), clock: runClock },
      {
        ...TEST_OPTIONS,
        budget,
      },
    );
    expect(first.stoppedByDeadline).toBe(true);
    expect(first.daysDeferred).toBeGreaterThan(0);
    expect(first.daysScanned).toBeGreaterThan(0);
    // Past the deadline no day was begun: the days asked for are the scanned ones and at most the few in
    // flight when it came (the preflight's day among them).
    expect(started.size).toBeLessThanOrEqual(first.daysScanned + 1 + (TEST_OPTIONS.dayConcurrency ?? 1));
    // Past the deadline the run only finishes what it had begun: no other day is read, written or asked for.
    expect(touchedBefore.size).toBeGreaterThan(0);
    expect([...touchedAfter].filter((d) => !touchedBefore.has(d))).toEqual([]);
    w.emulator.setFaults({});
    const second = await runArchive(w.deps(), TEST_OPTIONS);
    expect(second.daysScanned).toBe(60 - first.daysScanned);
    const archive = await archivedIds(w.objects);
    expect(diffArchive(archive.byDt, truthIds(w, windowDays(toDay(w.clock.now()))))).toEqual([]);
  });

  it('on S3: a file committed but not yet published fails only its day, and the next run publishes it without writing it again', async () => {
    const world = await worlds.open({ store: 's3' });
    const w = world;
    let publishes = 0;
    const failing: ObjectStore = Object.assign(Object.create(w.objects) as ObjectStore, {
      publish: async (from: string, to: string) => {
        // The third history file (the active snapshot, which runs beside the days, publishes too).
        if (to.startsWith('history/') && ++publishes === 3) {
          throw new ArchiverError('STORE_FAILED', 'simulated crash after commit');
        }
        return w.objects.publish(from, to);
      },
    });
    // The day whose publish failed is recorded as failed; the run goes on with the other days.
    const first = await runArchive({ ...w.deps(), objects: failing }, TEST_OPTIONS);
    expect(first.failedDays).toEqual([
      expect.objectContaining({ code: 'STORE_FAILED', message: 'simulated crash after commit', attempts: 1 }),
    ]);
    expect(first.daysScanned).toBe(59);
    const failedDay = first.failedDays[0]?.day ?? '';
    expect((await w.state.getDay(failedDay))?.failure).toMatchObject({ code: 'STORE_FAILED', attempts: 1 });
    // The next run publishes the committed file first (before its preflight), then rescans only that day.
    const resumed = await runArchive(w.deps(), TEST_OPTIONS);
    expect(resumed.daysScanned).toBe(1);
    expect(resumed.days[0]?.newRecords).toBe(0);
    expect((await w.state.getDay(failedDay))?.failure).toBeUndefined();
    const archive = await archivedIds(w.objects);
    expect(archive.total).toBe(archive.distinct);
    expect(diffArchive(archive.byDt, truthIds(w, windowDays(toDay(w.clock.now()))))).toEqual([]);
    const staged: string[] = [];
    for await (const o of w.objects.list('_staging/')) staged.push(o.key);
    expect(staged).toEqual([]);
  });

  it('rejects a backfill day outside the window before writing anything', async () => {
    const world = await worlds.open();
    const old = addDays(toDay(world.clock.now()), -60);
    await expect(runArchive(world.deps(), { ...TEST_OPTIONS, onlyDays: [old] })).rejects.toMatchObject({
      code: 'OUTSIDE_WINDOW',
    });
    expect(await world.state.getMeta()).toBeUndefined();
  });
});

describe('runArchive under offset drift', () => {
  it('never archives a phantom or a double while rows are inserted mid-walk, and rescans catch up', async () => {
    const world = await worlds.open({ faults: { driftInsertPerRequest: 3 } });
    const w = world;
    const days = windowDays(toDay(w.clock.now()));
    await runArchive(w.deps(), TEST_OPTIONS);
    let archive = await archivedIds(w.objects);
    expect(archive.total).toBe(archive.distinct);
    const truthNow = truthIds(w, days);
    for (const [day, ids] of archive.byDt)
      for (const id of ids) expect(truthNow.get(day)?.has(id), day).toBe(true);
    // With drift off, one more pass over every day brings the archive to exactly what the API shows.
    w.emulator.setFaults({});
    await runArchive(w.deps(), { ...TEST_OPTIONS, onlyDays: days });
    archive = await archivedIds(w.objects);
    expect(diffArchive(archive.byDt, truthIds(w, days))).toEqual([]);
  });
});

describe('runArchive against an adversarial emulator over HTTP', () => {
  it('stale whole-page totals, poison records and a 59-day server: exact archive, poison quarantined, edge day a gap, run green', async () => {
    const world = await worlds.open({
      emulator: { staleTotals: 'floor-pages', poisonRecords: { count: 2 }, windowDays: 59 },
    });
    const w = world;
    const today = toDay(w.clock.now());
    const oldest = addDays(today, -59);
    const summary = await runArchive(w.deps(), TEST_OPTIONS);
    expect(summary.failedDays).toEqual([]);
    expect(summary.gaps).toEqual([oldest]);
    expect(summary.learnedWindowDays).toBe(59);
    const days = windowDays(today).filter((d) => d !== oldest);
    const expected = new Set<string>();
    let invalid = 0;
    for (const d of days) {
      for (const r of w.emulator.truth(d)) expected.add(recordId(r, TEST_TOKEN_KEY));
      for (const p of w.emulator.poison(d)) {
        if (p.valid) expected.add(recordId(historyRecordSchema.parse(p.item), TEST_TOKEN_KEY));
        else invalid++;
      }
    }
    const archive = await archivedIds(w.objects);
    expect(archive.total).toBe(archive.distinct);
    expect(new Set([...archive.byDt.values()].flat())).toEqual(expected);
    const quarantined: string[] = [];
    for await (const o of w.objects.list('quarantine/')) quarantined.push(o.key);
    expect(quarantined.length).toBe(invalid);
    expect(summary.quarantined).toBe(invalid);
    // Under the default hash policy, no raw token reaches the archive: not the Parquet (extra_json included,
    // where the poison quotes tokens inside other values too), not the quarantine.
    const tokens = new Set<string>();
    for (const d of days) {
      for (const r of w.emulator.truth(d))
        for (const t of [r.token_value, r.virtual_token_value]) if (t) tokens.add(t);
      for (const p of w.emulator.poison(d))
        for (const t of JSON.stringify(p.item).match(/"(?:token_value|auth_token)":"([^"]+)"/g) ?? [])
          tokens.add(t.split(':"')[1]?.slice(0, -1) ?? '');
    }
    tokens.delete('');
    expect(tokens.size).toBeGreaterThan(10);
    const glob = join(w.dir, 'archive', 'history', '*', '*.parquet');
    const rows = await duckdb(
      `SELECT coalesce(token_value, '') || coalesce(extra_json, '') AS text FROM read_parquet('${glob}')`,
    );
    const archiveText = rows.map((r) => String(r.text)).join('\n');
    let quarantineText = '';
    for (const q of quarantined) quarantineText += new TextDecoder().decode(await w.objects.get(q));
    for (const t of tokens) {
      expect(archiveText.includes(t), t).toBe(false);
      expect(quarantineText.includes(t), t).toBe(false);
    }
  });
});
