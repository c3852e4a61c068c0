import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock/clock.ts';
import { duckdbRuleEngine } from '../../lib/detect/duckdbRuleEngine.ts';
import { dynamoFindingLedger } from '../../lib/detect/dynamoFindingLedger.ts';
import { evaluateRules } from '../../lib/detect/evaluateRules.ts';
import type { Finding } from '../../lib/detect/finding.ts';
import type { FindingLedger } from '../../lib/detect/findingLedger.ts';
import { loadRules } from '../../lib/detect/loadRules.ts';
import { testTableSql } from '../../lib/detect/runRuleTests.ts';
import { versionedFindingLedger } from '../../lib/detect/versionedFindingLedger.ts';
import { silentLogger } from '../../lib/log/logger.ts';
import { fileVersionedItems } from '../../lib/state/fileVersionedItems.ts';
import { type DynaliteHandle, startDynalite } from '../support/startDynalite.ts';

let dynamo: DynaliteHandle;
let folder: string;
beforeAll(async () => {
  dynamo = await startDynalite();
  folder = await mkdtemp(join(tmpdir(), 'ta-ledger-'));
});
afterAll(async () => {
  await dynamo.close();
  await rm(folder, { recursive: true, force: true });
});

/** The ledgers: on DynamoDB (AWS) and on the versioned items of local mode's state folder. */
const LEDGERS: { name: string; ledger: (owner: string) => FindingLedger }[] = [
  {
    name: 'the DynamoDB-compatible server',
    ledger: (owner) => dynamoFindingLedger(dynamo.client, dynamo.table, owner),
  },
  {
    name: 'the local state folder',
    ledger: (owner) => versionedFindingLedger(fileVersionedItems(join(folder, 'items')), owner),
  },
];

const rules = await loadRules();
/** Every rule's positive yml rows in one table: several findings of several rules. */
const rows = rules.flatMap((r) =>
  r.tests.filter((t) => t.findings.length > 0 && !t.settings && !t.since).flatMap((t) => t.rows),
);
const expected = rules.flatMap((r) =>
  r.tests
    .filter((t) => t.findings.length > 0 && !t.settings && !t.since)
    .flatMap((t) => t.findings.map((f) => `${r.id}:${f.entity}`)),
);

/**
 * Two ledgers over one store whose claims of a finding meet: each claim waits until the other evaluation
 * claims the same finding, then both go to the store together. Records which claims overlapped and lost.
 */
function meetingLedgers(ledgerOf: (owner: string) => FindingLedger) {
  const meetings = new Map<string, { arrived: number; met: Promise<void>; meet(): void }>();
  const overlapped = new Set<string>();
  const lost: string[] = [];
  const meeting = (id: string) => {
    let entry = meetings.get(id);
    if (!entry) {
      let meet = () => {};
      const met = new Promise<void>((resolve) => {
        meet = resolve;
      });
      entry = { arrived: 0, met, meet };
      meetings.set(id, entry);
    }
    return entry;
  };
  const of =
    (owner: string): ((o: string) => FindingLedger) =>
    () => {
      const inner = ledgerOf(owner);
      return {
        async claim(findingId, dedupeKey, expiresAt) {
          const m = meeting(findingId);
          m.arrived += 1;
          if (m.arrived === 2) {
            overlapped.add(findingId);
            m.meet();
          }
          // Bounded: evaluations that never claim the same finding together fail the test, not hang it.
          await Promise.race([m.met, new Promise((r) => setTimeout(r, 10_000).unref())]);
          const won = await inner.claim(findingId, dedupeKey, expiresAt);
          if (!won) lost.push(findingId);
          return won;
        },
      };
    };
  return { of, overlapped, lost };
}

/** One evaluation as a schedule would run it: its own engine, the shared ledger, deliveries recorded. */
async function evaluate(
  ledgerOf: (owner: string) => FindingLedger,
  owner: string,
  delivered: Finding[],
  at: string,
) {
  const engine = await duckdbRuleEngine([testTableSql(rows as never)]);
  try {
    return await evaluateRules(
      {
        engine,
        ledger: ledgerOf(owner),
        clock: new ManualClock(at),
        logger: silentLogger,
        deliver: async (f) => {
          delivered.push(f);
        },
      },
      { rules: rules.filter((r) => r.id !== 'first_seen_token'), since: '2026-03-01', until: '2026-03-02' },
    );
  } finally {
    engine.close();
  }
}

describe.each(LEDGERS)('dedupe with $name', ({ ledger }) => {
  it('the same evaluation twice delivers each finding once', async () => {
    const delivered: Finding[] = [];
    const first = await evaluate(ledger, 'run-a', delivered, '2026-03-03T10:00:00Z');
    const second = await evaluate(ledger, 'run-b', delivered, '2026-03-03T10:05:00Z');
    expect(first.findings.length).toBeGreaterThanOrEqual(6);
    expect(second.findings.map((f) => f.finding_id).sort()).toEqual(
      first.findings.map((f) => f.finding_id).sort(),
    );
    expect(second.delivered).toEqual([]);
    expect(delivered.map((f) => f.finding_id).sort()).toEqual(first.findings.map((f) => f.finding_id).sort());
    for (const key of expected.filter((k) => !k.startsWith('first_seen_token')))
      expect(delivered.map((f) => `${f.rule_id}:${f.entity}`)).toContain(key);
  });

  it('two concurrent evaluations deliver each finding once between them', async () => {
    const delivered: Finding[] = [];
    const met = meetingLedgers(ledger);
    // A later day: new dedupe periods, so nothing is claimed yet.
    const [a, b] = await Promise.all([
      evaluate(met.of('run-c'), 'run-c', delivered, '2026-04-20T10:00:00Z'),
      evaluate(met.of('run-d'), 'run-d', delivered, '2026-04-20T10:00:01Z'),
    ]);
    const ids = delivered.map((f) => f.finding_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(a.findings.map((f) => f.finding_id).sort());
    expect(a.delivered.length + b.delivered.length).toBe(a.findings.length);
    // Every finding was claimed by both at once, and one of the two claims lost each time.
    const all = a.findings.map((f) => f.finding_id).sort();
    expect([...met.overlapped].sort()).toEqual(all);
    expect([...met.lost].sort()).toEqual(all);
  });
});
