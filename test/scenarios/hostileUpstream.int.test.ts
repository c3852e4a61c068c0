import { afterEach, describe, expect, it } from 'vitest';
import { bodyChunks } from '../../devkit/bodyShapes.ts';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords } from '../../devkit/scriptedUpstream.ts';
import { RECORD_LIMITS } from '../../lib/archive/records/recordLimits.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { MAX_BODY_BYTES } from '../../lib/archive/upstream/bodyLimits.ts';
import {
  createTunnelApiClient,
  type TunnelApiClient,
} from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { TEST_OPTIONS, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import {
  type GeneratedBody,
  JsonText,
  type PagedHistoryServer,
  startPagedHistoryServer,
} from '../support/pagedHistoryServer.ts';

// A hostile or broken upstream: a record nested 10,000 levels deep, a page body of 200 MiB. Each is
// quarantined or refused; the run goes on, and the day's other records are archived.

const clock = new ManualClock('2026-11-20T06:00:00.000Z');
const days: Day[] = [-5, -4, -3].map((n) => addDays(toDay(clock.now()), n));
const [first, second, third] = days as [Day, Day, Day];
const PAGE = 10;
const PER_DAY = 35;
const MiB = 1024 * 1024;

let server: PagedHistoryServer | undefined;
let api: TunnelApiClient | undefined;
afterEach(async () => {
  await api?.close();
  await server?.close();
  api = undefined;
  server = undefined;
});

async function archive(
  items: Map<Day, unknown[]>,
  override?: (day: Day, page: number) => GeneratedBody | undefined,
): Promise<{ objects: ObjectStore; state: StateStore; summary: Awaited<ReturnType<typeof runArchive>> }> {
  server = await startPagedHistoryServer(items, override);
  api = createTunnelApiClient({ baseUrl: server.url, apiKey: 'test-key', clock, retry: { maxAttempts: 1 } });
  const objects = new MemoryObjectStore();
  const state = new MemoryStateStore();
  const summary = await runArchive(testDeps({ api, objects, state, clock }), {
    ...TEST_OPTIONS,
    pageSize: PAGE,
    onlyDays: days,
    snapshotActive: false,
  });
  return { objects, state, summary };
}

async function rowsOf(state: StateStore, day: Day): Promise<number> {
  const manifest = await state.getPartition(day, 'history');
  return (manifest?.files ?? []).reduce((sum, f) => sum + f.rows, 0);
}

async function quarantinedOf(objects: ObjectStore, day: Day): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const info of objects.list(`quarantine/day=${day}/`)) {
    const bytes = await objects.get(info.key);
    if (bytes) out.push(JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>);
  }
  return out;
}

/** A record of the second day with an extra field nested `depth` levels, as JSON text. */
function deepItem(depth: number): JsonText {
  const record = JSON.stringify(dayOfRecords(second, 1, 900)[0]);
  return new JsonText(`${record.slice(0, -1)},"extra":${'['.repeat(depth)}${']'.repeat(depth)}}`);
}

describe('a hostile upstream', () => {
  it('quarantines a record nested 10,000 levels deep with the limit as its reason; every other record of its day is archived', async () => {
    const items = new Map(days.map((d, i) => [d, dayOfRecords(d, PER_DAY, i * 100)]));
    (items.get(second) as unknown[]).splice(17, 0, deepItem(10_000));
    const { objects, state, summary } = await archive(items);
    expect(summary.failedDays).toEqual([]);
    for (const day of days) expect(await rowsOf(state, day)).toBe(PER_DAY);
    const quarantined = await quarantinedOf(objects, second);
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]?.reason).toMatch(
      new RegExp(`nested more than ${RECORD_LIMITS.maxDepth} levels deep \\(the record limit\\)$`),
    );
    // What the quarantine keeps is bounded, and its token is redacted like any other.
    expect(JSON.stringify(quarantined[0]).length).toBeLessThan(4096);
    expect(JSON.stringify(quarantined[0])).not.toContain('TOKEN0900');
  });

  it.each([
    { how: 'streamed without a length', declared: false },
    { how: 'declared by Content-Length', declared: true },
  ])(
    'refuses a 200 MiB page body ($how) as BODY_TOO_LARGE: its day is recorded failed, its other pages and the other days archived',
    async ({ declared }) => {
      const items = new Map(days.map((d, i) => [d, dayOfRecords(d, PER_DAY, i * 100)]));
      const huge = 200 * MiB;
      const { state, summary } = await archive(items, (day, page) =>
        day === second && page === 1
          ? { chunks: () => bodyChunks('wide', huge), ...(declared ? { declaredBytes: huge } : {}) }
          : undefined,
      );
      expect(summary.failedDays).toEqual([expect.objectContaining({ day: second, code: 'BODY_TOO_LARGE' })]);
      expect(summary.failedDays[0]?.message).toMatch(new RegExp(`exceeds ${MAX_BODY_BYTES} bytes`));
      expect((await state.getDay(second))?.failure?.code).toBe('BODY_TOO_LARGE');
      // The day's pages but the refused one are archived; the other days whole.
      expect(await rowsOf(state, second)).toBe(PER_DAY - PAGE);
      expect(await rowsOf(state, first)).toBe(PER_DAY);
      expect(await rowsOf(state, third)).toBe(PER_DAY);
      // The client stopped reading at the cap (or at the declared length): the server never sent 200 MiB.
      const sent = server?.generatedBytesSent() ?? 0;
      expect(sent).toBeLessThan(MAX_BODY_BYTES + 8 * MiB);
      if (!declared) expect(sent).toBeGreaterThan(MAX_BODY_BYTES);
    },
  );

  it('refuses a page of millions of tiny items, more than the size asked for, before it is parsed whole: its day is recorded failed, the rest archived', async () => {
    const items = new Map(days.map((d, i) => [d, dayOfRecords(d, PER_DAY, i * 100)]));
    const { state, summary } = await archive(items, (day, page) =>
      day === second && page === 2 ? { chunks: () => bodyChunks('tiny', 4 * MiB) } : undefined,
    );
    expect(summary.failedDays).toEqual([expect.objectContaining({ day: second, code: 'BODY_TOO_LARGE' })]);
    expect(summary.failedDays[0]?.message).toMatch(
      new RegExp(`page=2&size=${PAGE}: the page holds at least \\d+ items, more than the ${PAGE} asked for`),
    );
    expect((await state.getDay(second))?.failure?.code).toBe('BODY_TOO_LARGE');
    expect(await rowsOf(state, second)).toBe(PER_DAY - PAGE);
    expect(await rowsOf(state, first)).toBe(PER_DAY);
    expect(await rowsOf(state, third)).toBe(PER_DAY);
  });
});
