import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { createArchiveHandler } from '../../../functions/archive-history/archiveHandler.ts';
import { archiveKeys } from '../../../lib/archive/commit/archiveKeys.ts';
import { loadConfig } from '../../../lib/archive/config/loadConfig.ts';
import { runArchive } from '../../../lib/archive/run/runArchive.ts';
import { addDays, toDay } from '../../../lib/foundation/clock/day.ts';
import { readStoredVerify } from '../../../lib/integrity/verify/storeVerify.ts';
import { verifyArchive } from '../../../lib/integrity/verify/verifyArchive.ts';
import type { VerifyResult } from '../../../lib/integrity/verify/verifyTypes.ts';
import { TEST_OPTIONS, TEST_TOKEN_KEY, type World, worldPerTest } from '../../support/engineKit.ts';

const worlds = worldPerTest();

describe('the weekly verify writes reports/index.html (S3-compatible server)', () => {
  it('after {"verify": true}, the bucket holds the report as HTML, with that verify result and the state\'s days', async () => {
    await weeklyVerifyWritesTheReport(await worlds.open({ start: '2026-10-01T06:00:00.000Z', store: 's3' }));
  });
});

/** Archives a few days, runs the handler's verify twice, and reads the page back from the bucket. */
async function weeklyVerifyWritesTheReport(w: World): Promise<void> {
  const s3 = w.s3 as NonNullable<World['s3']>;
  const deps = w.deps();
  // A few days are enough for the page; the archive-only checks keep the test short (the API
  // comparison is verify's own test).
  const today = toDay(w.clock.now());
  await runArchive(deps, { ...TEST_OPTIONS, onlyDays: [1, 2, 3, 59].map((n) => addDays(today, -n)) });
  const logs: { message: string; attributes?: Record<string, unknown> }[] = [];
  const log = (message: string, attributes?: Record<string, unknown>) =>
    logs.push({ message, ...(attributes ? { attributes } : {}) });
  const handler = createArchiveHandler({
    config: loadConfig({
      env: { ARCHIVE_DEST: `s3://${s3.bucket}/archive`, ARCHIVE_STATE: 'dynamodb://state' },
    }),
    objects: w.objects,
    state: w.state,
    clock: w.clock,
    logger: { debug: log, info: log, warn: log, error: log },
    metrics: { addMetric: () => undefined, publishStoredMetrics: () => undefined },
    getApiKey: async () => 'emulator',
    getKeys: async () => ({ tokenKey: TEST_TOKEN_KEY, signer: deps.signer }),
    verify: ({ objects, clock }, { api: _api, tokenKey: _key, ...options }) =>
      verifyArchive({ objects, clock }, options),
    // The world's client, kept open for the world to close.
    createApi: () => ({
      listActive: (o) => w.api.listActive(o),
      historyPage: (from, to, page, size, o) => w.api.historyPage(from, to, page, size, o),
      close: async () => undefined,
    }),
  });
  const result = (await handler(
    { verify: true },
    { getRemainingTimeInMillis: () => 600_000 },
  )) as VerifyResult;
  expect(result.ok).toBe(true);
  expect(logs.map((l) => l.message)).toContain('report written');

  const got = await s3.client.send(
    new GetObjectCommand({ Bucket: s3.bucket, Key: `archive/${archiveKeys.report}` }),
  );
  expect(got.ContentType).toBe('text/html; charset=utf-8');
  const html = (await got.Body?.transformToString()) ?? '';
  expect(html).toContain(`<span data-figure="verify.records">${result.records}</span>`);
  expect(html).toContain(`<span data-figure="verify.head.sha256">${result.head?.sha256}</span>`);
  const days = await w.state.listDays();
  expect(days.length).toBeGreaterThan(3);
  for (const d of days)
    expect(html).toContain(`data-day="${d.day}" data-status="${d.sealed ? 'sealed' : 'window'}"`);
  // The result is stored beside it, and a report built later without a verify of its own shows it.
  expect(await readStoredVerify(w.objects)).toEqual(JSON.parse(JSON.stringify(result)));
  // A second verify replaces the page, and the pages under reports/ are no data files it objects to.
  const again = (await handler(
    { verify: true },
    { getRemainingTimeInMillis: () => 600_000 },
  )) as VerifyResult;
  expect(again.failures).toEqual([]);
  expect(logs.filter((l) => l.message === 'report written')).toHaveLength(2);
}
