import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import { readHistoryRows } from '../../lib/archive/parquet/readHistoryParquet.ts';
import type { HistoryPage, HistoryRecord } from '../../lib/archive/records/schemas.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { TEST_OPTIONS, TEST_SIGNER, TEST_TOKEN_KEY } from '../support/engineKit.ts';

const good: HistoryRecord = {
  start_time: '2026-09-30T10:00:00.000+00:00',
  end_time: '2026-09-30T11:00:00.000+00:00',
  user_email: 'a@example.com',
  token_value: 'TOK',
  virtual_token_value: null,
  domains: ['a.example.com'],
  mode: 'http',
  mode_udp: '',
  client_ip: '[10.0.0.1]:1234',
  port: null,
  brand_new_field: 'kept',
};
const bad = { start_time: 'not a time', user_email: 42 };

/** A port-level stand-in whose one day holds one valid record and one the schema rejects. */
const api: UpstreamApi = {
  listActive: async () => [],
  historyPage: async (from, _to, page, size): Promise<HistoryPage> => {
    const content = from === '2026-09-30' && page === 0 ? [good] : [];
    const rejected =
      from === '2026-09-30' && page === 0
        ? [{ raw: bad, reason: 'start_time: not an ISO 8601 date-time' }]
        : [];
    const total = content.length + rejected.length;
    const sort = { empty: true, sorted: false, unsorted: true };
    return {
      totalElements: total,
      totalPages: total ? 1 : 0,
      size,
      content,
      rejected,
      number: page,
      sort,
      pageable: { pageNumber: page, pageSize: size, sort, offset: page * size, paged: true, unpaged: false },
      numberOfElements: total,
      first: page === 0,
      last: true,
      empty: total === 0,
    };
  },
};

let dynamo: DynaliteHandle | undefined;
let dir: string | undefined;
afterEach(async () => {
  await dynamo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('runArchive quarantine', () => {
  it('keeps an invalid record with its reason, counts it once, and archives the valid one with its extra fields', async () => {
    dynamo = await startDynalite();
    dir = await mkdtemp(join(tmpdir(), 'ta-q-'));
    const objects = createFileObjectStore(dir);
    const deps = {
      api,
      objects,
      state: createDynamoStateStore({ client: dynamo.client, table: dynamo.table }),
      clock: new ManualClock('2026-10-01T06:00:00Z'),
      logger: silentLogger,
      tokenKey: TEST_TOKEN_KEY,
      signer: TEST_SIGNER,
    };
    const first = await runArchive(deps, TEST_OPTIONS);
    expect(first.quarantined).toBe(1);
    expect(first.recordsNew).toBe(1);
    expect(first.shortfalls).toEqual([]); // the quarantined item counts toward totalElements
    const keys: string[] = [];
    for await (const o of objects.list('quarantine/')) keys.push(o.key);
    expect(keys).toHaveLength(1);
    const kept = JSON.parse(await readFile(join(dir, keys[0] as string), 'utf8'));
    expect(kept).toMatchObject({
      day: '2026-09-30',
      raw: bad,
      reason: expect.stringContaining('start_time'),
    });
    const files: string[] = [];
    for await (const o of objects.list('history/')) files.push(o.key);
    expect(files).toHaveLength(1);
    const rows = await readHistoryRows((await objects.get(files[0] as string)) as Uint8Array);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(String(rows[0]?.extra_json))).toEqual({ brand_new_field: 'kept' });
    expect(rows[0]?.token_value).toBeNull();
    const second = await runArchive(deps, { ...TEST_OPTIONS, onlyDays: ['2026-09-30'] });
    expect(second.quarantined).toBe(0);
    expect(second.recordsNew).toBe(0);
    const again: string[] = [];
    for await (const o of objects.list('quarantine/')) again.push(o.key);
    expect(again).toEqual(keys);
    expect((await deps.state.getDay('2026-09-30'))?.quarantined).toBe(1);
  });
});
