import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readHistoryRows } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow, TokenPolicy } from '../../lib/archive/records/archiveRow.ts';
import { HISTORY_RECORD_FIELDS } from '../../lib/archive/records/schemas.ts';
import { partitionOf, toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import { parseHistoryPage } from '../../lib/archive/upstream/parseResponses.ts';
import { isDay } from '../../lib/foundation/clock/day.ts';
import { baseRecord, recordFrom, recordPartsArb, TEST_TOKEN_KEY } from '../records/historyRecords.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/history-documented.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const now = new Date('2026-11-20T12:00:00.000Z');
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const HEX32 = /^[0-9a-f]{32}$/;

function page(content: unknown[]): Record<string, unknown> {
  return { ...fixture, content, numberOfElements: content.length };
}

describe('parseHistoryPage', () => {
  it('keeps the good records and rejects each bad one alone, with its index and reason', () => {
    const good = baseRecord();
    const items = [
      good,
      baseRecord({ start_time: '2026/11/20 10:00:00' }),
      baseRecord({ port: 3_000_000_000 }),
      baseRecord({ start_time: '-000001-06-01T00:00:00Z' }),
      baseRecord({ start_time: '2026-02-30T00:00:00Z' }),
      baseRecord({ start_time: '2026-11-25T00:00:00Z', end_time: null }),
      'not an object',
      good,
    ];
    const parsed = parseHistoryPage(page(items), now);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.content).toEqual([good, good]);
    expect(parsed.value.rejected.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^content\[1\]: start_time: '2026\/11\/20 10:00:00' is not an ISO 8601/),
      expect.stringMatching(/^content\[2\]: port: /),
      expect.stringMatching(/^content\[3\]: start_time: /),
      expect.stringMatching(/^content\[4\]: start_time: '2026-02-30T00:00:00Z' is not a real calendar/),
      expect.stringMatching(/^content\[5\]: start_time: more than 2 days after now/),
      expect.stringMatching(/^content\[6\]: \(root\): /),
    ]);
    expect(parsed.value.rejected[1]?.raw).toBe(items[2]);
  });

  it('judges the time range against the now it is given, not the host clock', () => {
    const record = baseRecord({ start_time: '2030-01-01T00:00:00Z', end_time: null });
    expect(parseHistoryPage(page([record]), now).ok && parseHistoryPage(page([record]), now)).toMatchObject({
      value: { content: [] },
    });
    const later = parseHistoryPage(page([record]), new Date('2029-12-31T00:00:00Z'));
    expect(later.ok && later.value.content).toEqual([record]);
  });

  it('rejects the whole response when the envelope is wrong', () => {
    const parsed = parseHistoryPage({ ...page([]), totalElements: -1 }, now);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.summary).toMatch(/^totalElements: /);
  });
});

/** Values that poke at the edges: odd dates, huge and fractional numbers, wrong types, -0, lone surrogates. */
const nastyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    '2026/11/20 10:00:00',
    '12',
    '2026-02-30T00:00:00Z',
    '-000001-06-01T00:00:00Z',
    '+275760-09-13T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00Z',
    '2026-11-20T10:00:00',
    '2026-11-20T24:00:00Z',
    '2026-11-21T10:00:00+14:00',
    '[1.2.3.4]:3000000000',
    '[::1]:65536',
    3_000_000_000,
    2 ** 31,
    -1,
    65_535.5,
    Number.MAX_SAFE_INTEGER,
    -0,
    'lone\ud800',
    '\udc00',
    'pair\u{1F600}',
  ),
);

const EARLIEST = Date.UTC(2000, 0, 1);
/** Valid record parts: starts between 2000 and now, ends up to 3 days later (or never). */
const plausibleParts = recordPartsArb.map((parts) => {
  const startMs = EARLIEST + ((parts.start.ms - EARLIEST) % (now.getTime() - EARLIEST));
  return {
    ...parts,
    start: { ...parts.start, ms: startMs },
    end: parts.end === null ? null : { ...parts.end, ms: startMs + (parts.end.ms % (3 * 86_400_000)) },
  };
});

/** A plausible record with some fields replaced by nasty values, extra fields added, or removed. */
const mangledRecord = fc
  .tuple(
    plausibleParts,
    fc.dictionary(fc.constantFrom(...HISTORY_RECORD_FIELDS), nastyValue, { maxKeys: 2 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
    fc.subarray([...HISTORY_RECORD_FIELDS], { maxLength: 1 }),
  )
  .map(([parts, overrides, extra, removed]) => {
    const record: Record<string, unknown> = { ...extra, ...recordFrom(parts), ...overrides };
    for (const field of removed) delete record[field];
    return record;
  });

const item = fc.oneof(mangledRecord, mangledRecord, fc.jsonValue({ maxDepth: 3 }));
const envelope = fc.oneof(
  { weight: 4, arbitrary: fc.array(item, { maxLength: 6 }).map(page) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.array(item, { maxLength: 3 }),
        fc.constantFrom(...Object.keys(fixture)),
        fc.jsonValue({ maxDepth: 1 }),
      )
      .map(([content, field, value]) => ({ ...page(content), [field]: value })),
  },
);

/** Rows collected by the property, written to one real Parquet file afterwards. */
const acceptedRows: ArchiveRow[] = [];
const tmp: string[] = [];
afterAll(async () => {
  for (const dir of tmp) await rm(dir, { recursive: true, force: true });
});

function expectRowFitsTheSchema(row: ArchiveRow): void {
  expect(row.record_id).toMatch(HEX32);
  expect(row.session_id).toMatch(HEX32);
  expect(Number.isFinite(row.start_time.getTime())).toBe(true);
  const dt = partitionOf(row);
  expect(isDay(dt)).toBe(true);
  expect(dt >= '2000-01-01' && dt <= '9999-12-31').toBe(true);
  if (row.end_time !== null) expect(row.end_time.getTime()).toBeGreaterThanOrEqual(row.start_time.getTime());
  for (const value of [row.port, row.client_port]) {
    if (value === null) continue;
    expect(Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX).toBe(true);
    expect(value >= 0 && value <= 65_535).toBe(true);
  }
  for (const text of [row.user_email, row.mode, row.mode_udp, row.client_ip, ...row.domains]) {
    expect(typeof text).toBe('string');
  }
  if (row.extra_json !== null) expect(() => JSON.parse(row.extra_json as string)).not.toThrow();
}

describe('parseHistoryPage (property)', () => {
  it('never throws on any JSON, and every accepted record maps to a row that fits the Parquet schema', () => {
    fc.assert(
      fc.property(envelope, fc.constantFrom<TokenPolicy>('keep', 'hash', 'drop'), (json, tokenPolicy) => {
        const parsed = parseHistoryPage(json, now);
        if (!parsed.ok) return;
        const { content, rejected } = parsed.value;
        expect(content.length + rejected.length).toBe((json as { content: unknown[] }).content.length);
        for (const record of content) {
          const row = toArchiveRow(record, { tokenPolicy, tokenKey: TEST_TOKEN_KEY, archivedAt: now });
          expectRowFitsTheSchema(row);
          if (acceptedRows.length < 2_000) acceptedRows.push(row);
        }
      }),
      { numRuns: 1_000 },
    );
    expect(acceptedRows.length).toBeGreaterThan(50);
  });

  it('writes every accepted row to a Parquet file that reads back whole', async () => {
    expect(acceptedRows.length).toBeGreaterThan(0);
    const dir = await mkdtemp(join(tmpdir(), 'ta-parse-'));
    tmp.push(dir);
    const path = join(dir, 'rows.parquet');
    const written = await writeHistoryParquet(acceptedRows, path);
    expect(written.rows).toBe(acceptedRows.length);
    const read = await readHistoryRows(new Uint8Array(await readFile(path)));
    // Every column of every row, as the row held it (`toEqual` tells -0 from 0, and U+FFFD from a lone
    // surrogate): the wire schema lets no value through that its file cannot hold back.
    expect(read).toEqual(acceptedRows);
  });
});
