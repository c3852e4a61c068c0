import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import { duckdbRuleEngine } from '../../lib/analytics/detect/duckdbRuleEngine.ts';
import { type DeliveryStatus, evaluateRules } from '../../lib/analytics/detect/evaluateRules.ts';
import type { Finding } from '../../lib/analytics/detect/finding.ts';
import type { FindingLedger } from '../../lib/analytics/detect/findingLedger.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { NO_LIVE_SESSIONS_SQL, testTableSql } from '../../lib/analytics/detect/runRuleTests.ts';
import { versionedFindingLedger } from '../../lib/analytics/detect/versionedFindingLedger.ts';
import { dynamoVersionedItems } from '../../lib/archive/state/dynamoVersionedItems.ts';
import { fileVersionedItems } from '../../lib/archive/state/fileVersionedItems.ts';
import type { VersionedItems } from '../../lib/archive/state/versionedItems.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';

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

/** Items under keys of one test's own (the tests share one table). */
function spaced(items: VersionedItems, space: string): VersionedItems {
  const k = (pk: string) => `${space}/${pk}`;
  return {
    where: items.where,
    get: (pk) => items.get(k(pk)),
    getMany: (pks) => items.getMany(pks.map(k)),
    put: (pk, version, data, bytes) => items.put(k(pk), version, data, bytes),
    delete: (pk) => items.delete(k(pk)),
    query: (prefix) => items.query(k(prefix)),
  };
}

/** The ledger on DynamoDB (AWS) and on the versioned items of local mode's state folder, each test its own keys. */
const LEDGERS: { name: string; ledger: (space: string) => (owner: string) => FindingLedger }[] = [
  {
    name: 'the DynamoDB-compatible server',
    ledger: (space) => (owner) =>
      versionedFindingLedger(
        spaced(dynamoVersionedItems({ client: dynamo.client, table: dynamo.table }), space),
        owner,
      ),
  },
  {
    name: 'the local state folder',
    ledger: (space) => (owner) => versionedFindingLedger(fileVersionedItems(join(folder, space)), owner),
  },
];

const rules = await loadRules();
type Row = Record<string, string | number | string[] | null>;
/** Every rule's positive yml rows in one table: several incidents of several rules. */
const positive = rules.filter((r) => r.id !== 'first_seen_token' && r.id !== 'new_client_network');
const rows = positive.flatMap((r) =>
  r.tests.filter((t) => t.findings.length > 0 && !t.settings && !t.since).flatMap((t) => t.rows as Row[]),
);

/**
 * Two ledgers over one store whose first writes of a key meet: each waits until the other evaluation
 * writes the same key, then both go to the store together. Records the keys whose writes overlapped and
 * the writes that lost. A wait ends on an event, never on a timer: the other evaluation writes the key,
 * or it can no longer (it finished, `finished(owner)`, or it waits itself at another key), so evaluations
 * that never write a key together fail the test at once instead of hanging it.
 */
function meetingLedgers(of: (owner: string) => FindingLedger) {
  const meetings = new Map<string, { arrived: Set<string>; met: Promise<void>; meet(): void }>();
  const overlapped = new Set<string>();
  const lost: string[] = [];
  const owners = new Map<string, { done: boolean }>();
  /** The evaluations waiting at a key, each with what lets it go. */
  const waiting = new Map<string, () => void>();
  const meeting = (key: string) => {
    let entry = meetings.get(key);
    if (!entry) {
      let meet = () => {};
      const met = new Promise<void>((resolve) => {
        meet = resolve;
      });
      entry = { arrived: new Set(), met, meet };
      meetings.set(key, entry);
    }
    return entry;
  };
  /** When every evaluation still running waits, none can come to another's key: all go on alone. */
  const noneCanCome = () => {
    const running = [...owners].filter(([, o]) => !o.done).map(([name]) => name);
    if (running.length > 0 && running.every((name) => waiting.has(name))) {
      const release = [...waiting.values()];
      waiting.clear();
      for (const go of release) go();
    }
  };
  const waitAt = (owner: string, met: Promise<void>) =>
    new Promise<void>((resolve) => {
      const go = () => {
        if (waiting.get(owner) === go) waiting.delete(owner);
        resolve();
      };
      waiting.set(owner, go);
      void met.then(go);
      noneCanCome();
    });
  const wrap = (owner: string): FindingLedger => {
    const inner = of(owner);
    owners.set(owner, { done: false });
    return {
      owner: inner.owner,
      read: (key) => inner.read(key),
      readOutbox: () => inner.readOutbox(),
      writeOutbox: (version, keys) => inner.writeOutbox(version, keys),
      async write(key, version, entry) {
        const m = meeting(key);
        if (!m.arrived.has(owner)) {
          m.arrived.add(owner);
          if (m.arrived.size === 2) {
            overlapped.add(key);
            m.meet();
          } else await waitAt(owner, m.met);
        }
        const won = await inner.write(key, version, entry);
        if (!won) lost.push(key);
        return won;
      },
    };
  };
  /** Marks an evaluation over (call it however it ended): the others wait for it no more. */
  const finished = (owner: string) => {
    const o = owners.get(owner);
    if (o) o.done = true;
    noneCanCome();
  };
  return { wrap, finished, overlapped, lost };
}

interface Delivery {
  finding: Finding;
  status: DeliveryStatus;
}

/** One evaluation as a schedule runs it: its own engine, the shared ledger, deliveries recorded. */
async function evaluate(
  ledger: FindingLedger,
  table: readonly Row[],
  at: string,
  out: Delivery[],
  only = positive,
  fail?: () => boolean,
) {
  const engine = await duckdbRuleEngine([testTableSql(table as never), NO_LIVE_SESSIONS_SQL]);
  try {
    return await evaluateRules(
      {
        engine,
        ledger,
        clock: new ManualClock(at),
        logger: silentLogger,
        deliver: async (finding, _rule, status) => {
          if (fail?.()) throw new Error('the process stopped before publishing');
          out.push({ finding, status });
        },
      },
      { rules: only },
    );
  } finally {
    engine.close();
  }
}

const news = (d: readonly Delivery[]) => d.filter((x) => x.status === 'new').map((x) => x.finding.finding_id);
const udp = rules.filter((r) => r.id === 'udp_tunnel');
const udpRow = (session: string, start: string): Row => ({
  session_id: session,
  token_hmac: 'tok-u',
  mode: 'tcp',
  mode_udp: 'udp',
  start_time: start,
});

describe.each(LEDGERS)('the incident ledger on $name', ({ ledger }) => {
  it('the same evaluation twice delivers each incident once', async () => {
    const of = ledger('twice');
    const out: Delivery[] = [];
    const first = await evaluate(of('run-a'), rows, '2026-03-02T23:00:00Z', out);
    const second = await evaluate(of('run-b'), rows, '2026-03-02T23:30:00Z', out);
    expect(first.findings.length).toBeGreaterThanOrEqual(6);
    expect(new Set(first.findings.map((f) => f.rule_id)).size).toBeGreaterThanOrEqual(6);
    expect(second.delivered).toEqual([]);
    expect(second.findings.map((f) => f.finding_id).sort()).toEqual(
      first.findings.map((f) => f.finding_id).sort(),
    );
    expect(news(out).sort()).toEqual(first.findings.map((f) => f.finding_id).sort());
  });

  it('two concurrent evaluations deliver each incident once between them', async () => {
    const met = meetingLedgers(ledger('concurrent'));
    const out: Delivery[] = [];
    const [a, b] = await Promise.all([
      evaluate(met.wrap('run-c'), rows, '2026-03-02T23:00:00Z', out).finally(() => met.finished('run-c')),
      evaluate(met.wrap('run-d'), rows, '2026-03-02T23:00:01Z', out).finally(() => met.finished('run-d')),
    ]);
    const ids = news(out);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(a.findings.map((f) => f.finding_id).sort());
    expect(a.delivered.length + b.delivered.length).toBe(a.findings.length);
    // Every incident was claimed by both at once, and one of the two claims lost each time.
    const keys = a.findings.map((f) => f.dedupe_key).sort();
    expect([...met.overlapped].sort()).toEqual(keys);
    expect([...new Set(met.lost)].sort()).toEqual(keys);
  });

  it('more activity within the quiet gap updates the incident; after the gap it is a new one', async () => {
    const of = ledger('lifecycle');
    const out: Delivery[] = [];
    const day1 = [udpRow('u1', '2026-03-10T08:00:00Z')];
    await evaluate(of('r1'), day1, '2026-03-10T09:00:00Z', out, udp);
    // Two days later, within the 7-day gap: the same incident, one session more.
    const day3 = [...day1, udpRow('u2', '2026-03-12T08:00:00Z')];
    const later = await evaluate(of('r2'), day3, '2026-03-12T09:00:00Z', out, udp);
    expect(later.delivered).toEqual([]);
    expect(later.updated).toHaveLength(1);
    expect(later.updated[0]).toMatchObject({ revision: 1, record_count: 2, hits: 2 });
    // Nothing new on the next run: nothing delivered at all.
    const quiet = await evaluate(of('r3'), day3, '2026-03-12T10:00:00Z', out, udp);
    expect([...quiet.delivered, ...quiet.updated]).toEqual([]);
    // Three weeks later (past the gap, past the lookback): a new incident.
    const next = await evaluate(
      of('r4'),
      [udpRow('u3', '2026-04-02T08:00:00Z')],
      '2026-04-02T09:00:00Z',
      out,
      udp,
    );
    expect(next.delivered).toHaveLength(1);
    expect(out.map((d) => d.status)).toEqual(['new', 'updated', 'new']);
    expect(new Set(news(out)).size).toBe(2);
  });

  it('a crash between claim and publish: the next evaluation publishes it, once', async () => {
    const of = ledger('crash');
    const out: Delivery[] = [];
    const table = [udpRow('c1', '2026-03-20T08:00:00Z')];
    await expect(evaluate(of('r1'), table, '2026-03-20T09:00:00Z', out, udp, () => true)).rejects.toThrow(
      /stopped/,
    );
    expect(out).toEqual([]);
    // Within the lease another evaluation leaves it to its owner; after it, the next one finishes it.
    await evaluate(of('r2'), table, '2026-03-20T09:05:00Z', out, udp);
    expect(out).toEqual([]);
    await evaluate(of('r3'), table, '2026-03-20T10:00:00Z', out, udp);
    await evaluate(of('r4'), table, '2026-03-20T11:00:00Z', out, udp);
    expect(out.map((d) => d.status)).toEqual(['new']);
  });

  it('a crash whose incident leaves the lookback is still published from the outbox', async () => {
    const of = ledger('outbox');
    const out: Delivery[] = [];
    const table = [udpRow('o1', '2026-03-20T08:00:00Z')];
    await expect(evaluate(of('r1'), table, '2026-03-20T09:00:00Z', out, udp, () => true)).rejects.toThrow();
    // A week later the rule no longer reads that day; the outbox still names the key.
    await evaluate(of('r2'), table, '2026-03-28T09:00:00Z', out, udp);
    expect(out.map((d) => `${d.status} ${d.finding.entity}`)).toEqual(['new tok-u']);
  });
});
