import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { activeParquetBytes, readActiveRows } from '../../lib/archive/active/activeParquet.ts';
import { diffSnapshot } from '../../lib/archive/active/diffSnapshot.ts';
import { rebuildActiveObservations } from '../../lib/archive/active/rebuildActiveObservations.ts';
import { readHistoryRows } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import { loneSurrogateAt } from '../../lib/archive/records/loneSurrogateAt.ts';
import { plainHistoryRecord } from '../../lib/archive/records/plainHistoryRecord.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import { parseActiveList, parseHistoryPage } from '../../lib/archive/upstream/parseResponses.ts';
import { session, TOKEN_KEY } from '../active/activeKit.ts';
import { baseRecord, TEST_TOKEN_KEY } from './historyRecords.ts';

/**
 * Values JSON can send that a Parquet file cannot hold as they are: `-0` (no integer is negative zero) and
 * a lone surrogate (`"\ud800"`: UTF-8 has no such character, it is written as U+FFFD). A row must never
 * hold one, or what is archived is not what the row said. Each case goes from JSON text, as the client
 * reads a response, to a file and back.
 */
const NOW = new Date('2026-11-28T00:00:00.000Z');
const tmp: string[] = [];
afterEach(async () => {
  for (const dir of tmp.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A history page's JSON text holding these records, parsed as the client parses a body. */
function pageFromText(
  records: readonly Record<string, unknown>[],
  patch: (text: string) => string = (t) => t,
) {
  const text = patch(
    JSON.stringify({
      content: records,
      pageable: {
        pageNumber: 0,
        pageSize: 20,
        sort: { empty: true, sorted: false, unsorted: true },
        offset: 0,
        paged: true,
        unpaged: false,
      },
      last: true,
      totalElements: records.length,
      totalPages: 1,
      size: 20,
      number: 0,
      sort: { empty: true, sorted: false, unsorted: true },
      first: true,
      numberOfElements: records.length,
      empty: records.length === 0,
    }),
  );
  const parsed = parseHistoryPage(JSON.parse(text), NOW);
  if (!parsed.ok) throw new Error(parsed.summary);
  return parsed.value;
}

async function historyRoundTrip(rows: ReturnType<typeof toArchiveRow>[]) {
  const dir = await mkdtemp(join(tmpdir(), 'ta-wire-'));
  tmp.push(dir);
  await writeHistoryParquet(rows, join(dir, 'rows.parquet'));
  return readHistoryRows(new Uint8Array(await readFile(join(dir, 'rows.parquet'))));
}

const STRING_FIELDS = [
  'user_email',
  'token_value',
  'virtual_token_value',
  'mode',
  'mode_udp',
  'client_ip',
] as const;

describe('loneSurrogateAt', () => {
  it.each([
    ['plain', 'abc', -1],
    ['a pair (an emoji)', 'a\u{1F600}b', -1],
    ['a lone high surrogate', 'ab\ud800', 2],
    ['a lone low surrogate', '\udc00ab', 0],
    ['a high one before a non-low', 'a\ud800b\u{1F600}', 1],
    ['two highs', '\ud800\ud800\udc00', 0],
    ['the empty string', '', -1],
  ])('%s', (_, text, at) => {
    expect(loneSurrogateAt(text)).toBe(at);
  });

  it('finds the first code unit that is a surrogate without its pair, in any text', () => {
    const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
    const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;
    const firstLone = (text: string): number => {
      for (let i = 0; i < text.length; i++) {
        const u = text.charCodeAt(i);
        if (isHigh(u) && !isLow(text.charCodeAt(i + 1))) return i;
        if (isLow(u) && !isHigh(text.charCodeAt(i - 1))) return i;
      }
      return -1;
    };
    // Texts of ASCII, other BMP letters, pairs and lone halves, so both answers occur often.
    const unit = fc.oneof(
      fc.constantFrom('a', 'é', '\u{1F600}', '\ud800', '\udbff', '\udc00', '\udfff'),
      fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        const text = units.join('');
        expect(loneSurrogateAt(text)).toBe(firstLone(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('a history record, from JSON text to Parquet and back', () => {
  it('reads a port sent as -0 as 0, in both the plain path and zod, and the row reads back as it was', async () => {
    const page = pageFromText([baseRecord({ port: 4242 }), baseRecord({ port: 4243, extra: 1 })], (t) =>
      t.replace('"port":4242', '"port":-0').replace('"port":4243', '"port":-0'),
    );
    expect(page.rejected).toEqual([]);
    expect(page.content).toHaveLength(2);
    for (const record of page.content) expect(Object.is(record.port, 0)).toBe(true);
    const rows = page.content.map((r) =>
      toArchiveRow(r, { tokenPolicy: 'keep', tokenKey: TEST_TOKEN_KEY, archivedAt: NOW }),
    );
    const read = await historyRoundTrip(rows);
    expect(read.map((r) => r.port)).toEqual(rows.map((r) => r.port));
    expect(read.every((r) => Object.is(r.port, 0))).toBe(true);
  });

  it.each([...STRING_FIELDS, 'domains'] as const)(
    'quarantines a record whose %s holds a lone surrogate, with the field and the reason',
    (field) => {
      const value = field === 'domains' ? ['ok.example', 'bad\ud800.example'] : 'bad\ud800';
      const raw = { ...baseRecord(), [field]: value };
      expect(plainHistoryRecord(raw)).toBeUndefined();
      const page = pageFromText([raw, baseRecord()]);
      expect(page.content).toHaveLength(1);
      expect(page.rejected).toHaveLength(1);
      expect(page.rejected[0]?.raw).toEqual(raw);
      expect(page.rejected[0]?.reason).toMatch(new RegExp(`^content\\[0\\]: ${field}.*lone surrogate`));
    },
  );

  it('archives text with surrogate pairs and other non-ASCII as sent, byte for byte', async () => {
    const text = 'ünï\u{1F600}\u{10FFFF}\u0000中';
    const raw = { ...baseRecord(), user_email: text, domains: [text], mode: text, token_value: text };
    expect(plainHistoryRecord(raw)).toStrictEqual(historyRecordSchema.parse(raw));
    const page = pageFromText([raw]);
    expect(page.rejected).toEqual([]);
    const rows = page.content.map((r) =>
      toArchiveRow(r, { tokenPolicy: 'keep', tokenKey: TEST_TOKEN_KEY, archivedAt: NOW }),
    );
    const [back] = await historyRoundTrip(rows);
    expect(back?.user_email).toBe(text);
    expect(back?.domains).toEqual([text]);
    expect(back?.mode).toBe(text);
    expect(back?.token_value).toBe(text);
  });
});

describe('an active session, from JSON text to Parquet and back', () => {
  it('reads -0 integers as 0 and keeps a string holding a lone surrogate as its JSON text', async () => {
    const s = session('s\ud800', { subdomain: 'x\udc00.a.pinggy.link', mode: 'tcp', token: 'tok\ud800' });
    const text = JSON.stringify([{ ...s, userId: 7, tokenId: 8, port: 9 }])
      .replace('"userId":7', '"userId":-0')
      .replace('"tokenId":8', '"tokenId":-0')
      .replace('"port":9', '"port":-0');
    const parsed = parseActiveList(JSON.parse(text));
    if (!parsed.ok) throw new Error(parsed.summary);
    const [live] = parsed.value;
    expect([live?.userId, live?.tokenId, live?.port].every((n) => Object.is(n, 0))).toBe(true);
    const opts = { tokenPolicy: 'keep', tokenKey: TOKEN_KEY, scheduleMs: 300_000 } as const;
    const { rows, next } = diffSnapshot({ sessions: {} }, parsed.value, NOW, opts);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(JSON.parse(row?.id as string)).toBe('s\ud800');
    expect(JSON.parse(row?.subdomain as string)).toBe('x\udc00.a.pinggy.link');
    expect(JSON.parse(row?.token as string)).toBe('tok\ud800');
    expect(row?.mode).toBe('tcp');
    const readBack = await readActiveRows(await activeParquetBytes(rows));
    expect(readBack).toEqual(rows);

    // After a state loss, the state rebuilt from these rows knows the session: the same list again
    // writes no row (not a `gone` for the stored id beside a `seen` for the id as sent).
    const rebuilt = rebuildActiveObservations(readBack);
    expect(Object.keys(next.sessions)).toEqual(Object.keys(rebuilt.sessions));
    const again = diffSnapshot(rebuilt, parsed.value, new Date(NOW.getTime() + 300_000), opts);
    expect(again.rows).toEqual([]);
  });
});
