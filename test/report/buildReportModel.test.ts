import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { buildReportModel, publicKeyFingerprint } from '../../lib/integrity/report/buildReportModel.ts';
import { renderReport } from '../../lib/integrity/report/renderReport.ts';
import { readStoredVerify, storeVerify } from '../../lib/integrity/verify/storeVerify.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { PLANTED_FINDINGS, plantedFindingsKey, plantedFindingsParquet } from './plantFindings.ts';

const NOW = '2026-10-01T06:00:00.000Z';

/** One digest listing one file of `dt` and the scans given. */
async function putDigest(
  objects: MemoryObjectStore,
  seq: number,
  dt: string,
  scans: { day: string; scannedAt: string; complete: boolean }[],
) {
  const file = {
    key: `history/dt=${dt}/f${seq}.parquet`,
    sha256: 'a'.repeat(64),
    bytes: 10,
    rows: 5,
    dataset: 'history',
    dt,
    min: null,
    max: null,
  };
  const digest = {
    format: 1,
    seq,
    runId: `r${seq}`,
    createdAt: NOW,
    keyId: 'k',
    algorithm: 'ed25519',
    previous: null,
    scans,
    files: [file],
    signature: 's',
  };
  await objects.put(digestKeys.digest(seq), JSON.stringify(digest));
}

describe('buildReportModel', () => {
  it('without the state, takes the calendar from the digests: sealed by a complete final scan, a gap when it left the window unsealed', async () => {
    const objects = new MemoryObjectStore();
    await putDigest(objects, 1, '2026-08-03', [{ day: '2026-08-03', scannedAt: NOW, complete: true }]); // age 59
    await putDigest(objects, 2, '2026-07-01', [
      { day: '2026-07-01', scannedAt: '2026-07-02T06:00:00.000Z', complete: true },
    ]);
    const m = await buildReportModel({ objects, clock: new ManualClock(NOW), windowDays: 60 });
    const of = (day: string) => m.calendar.find((d) => d.day === day);
    expect(m.status).toBeUndefined();
    expect(m.calendar[0]?.day).toBe('2026-07-01');
    expect(m.calendar.at(-1)?.day).toBe('2026-10-01');
    expect(of('2026-08-03')).toMatchObject({
      status: 'sealed',
      files: 1,
      rows: 5,
      scans: 1,
      scannedAges: [59],
    });
    expect(of('2026-07-01')).toMatchObject({ status: 'gap', scannedAges: [1] });
    expect(of('2026-09-30')).toMatchObject({ status: 'window', files: 0, scans: 0 });
    expect(m.integrity.head?.seq).toBe(2);
    expect(m.findings).toBeUndefined();
    expect(renderReport(m)).not.toContain('id="findings"');
  });

  it('shows the findings dataset when there is one: counts by rule and severity, latest first', async () => {
    const objects = new MemoryObjectStore();
    await objects.put(plantedFindingsKey(), await plantedFindingsParquet());
    const m = await buildReportModel({ objects, clock: new ManualClock(NOW), windowDays: 60 });
    expect(m.findings).toEqual({
      total: PLANTED_FINDINGS.length,
      byRule: [
        { rule: 'new_client_network', severity: 'medium', count: 2 },
        { rule: 'off_hours', severity: 'low', count: 1 },
      ],
      latest: [
        expect.objectContaining({ rule: 'off_hours', entity: '10.0.0.0/24', dt: '2026-09-30' }),
        expect.objectContaining({ rule: 'new_client_network', entity: 'tok:ab12' }),
        expect.objectContaining({ rule: 'new_client_network', entity: 'tok:cd34' }),
      ],
    });
    const html = renderReport(m);
    expect(html).toContain('id="findings"');
    expect(html).toContain('<td>new_client_network</td>');
    expect(html).toContain('<td>off_hours</td>');
  });
});

describe('publicKeyFingerprint', () => {
  it('is what docs/report.md says openssl prints: SHA-256 of the DER public key', () => {
    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'DER'], { input: pem });
    const byHand = execFileSync('sha256sum', { input: der }).toString().split(' ')[0];
    expect(publicKeyFingerprint(pem)).toBe(byHand);
  });
});

describe('the stored verify result', () => {
  it('is shown when the report runs no verify of its own, and said to be stored; anything else there is ignored', async () => {
    const objects = new MemoryObjectStore();
    const clock = new ManualClock(NOW);
    const fresh = await verifyArchive({ objects, clock }, { windowDays: 60 });
    await storeVerify(objects, fresh);
    const m = await buildReportModel({ objects, clock, windowDays: 60 });
    expect(m.verifySource).toBe('stored');
    expect(m.verify).toEqual(JSON.parse(JSON.stringify(fresh)));
    expect(renderReport(m)).toContain('reports/verify.json');
    const own = await buildReportModel({ objects, clock, windowDays: 60, verify: { ...fresh, records: 7 } });
    expect(own).toMatchObject({ verifySource: 'fresh', verify: { records: 7 } });
    await objects.put(archiveKeys.lastVerify, '{"ok": "yes"}');
    expect(await readStoredVerify(objects)).toBeUndefined();
  });
});
