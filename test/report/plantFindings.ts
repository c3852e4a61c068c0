import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dedupeKeyOf, type Finding, findingIdOf } from '../../lib/analytics/detect/finding.ts';
import { findingsWriter } from '../../lib/analytics/detect/findingsDataset.ts';
import type { Severity } from '../../lib/analytics/detect/ruleSchema.ts';

/** A finding as `detect` stores it: its id and dedupe key computed as the incident ledger computes them. */
function finding(
  ruleId: string,
  title: string,
  severity: Severity,
  entity: string,
  lastSeen: string,
): Finding {
  const last = new Date(lastSeen);
  const first = new Date(last.getTime() - 3_600_000);
  const hit = { entity, token_hmac: null, client_network: null, session_id: null, first_seen: first };
  const dedupeKey = dedupeKeyOf(ruleId, ['entity'], hit);
  return {
    ...hit,
    finding_id: findingIdOf(dedupeKey, first),
    rule_id: ruleId,
    rule_uid: `00000000-0000-4000-8000-${ruleId.length.toString().padStart(12, '0')}`,
    title,
    severity,
    source: 'scheduled',
    last_seen: last,
    hits: 1,
    record_ids: [`rec-${entity}`],
    record_count: 1,
    dedupe_key: dedupeKey,
    detected_at: last,
    updated_at: last,
    revision: 0,
    dt: '2026-09-30',
  };
}

/** The findings the planted file holds: two of one starter rule, one of another. */
export const PLANTED_FINDINGS: readonly Finding[] = [
  finding(
    'new_client_network',
    'A token used from a new client network',
    'medium',
    'tok:ab12',
    '2026-09-30T10:00:00.000Z',
  ),
  finding(
    'new_client_network',
    'A token used from a new client network',
    'medium',
    'tok:cd34',
    '2026-09-29T08:00:00.000Z',
  ),
  finding(
    'off_hours',
    'Tunnel opened outside working hours',
    'low',
    '10.0.0.0/24',
    '2026-09-30T23:00:00.000Z',
  ),
];

/** The planted findings as one Parquet file, written by the findings dataset's own writer. */
export async function plantedFindingsParquet(): Promise<Uint8Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ta-findings-'));
  try {
    const file = path.join(dir, 'findings.parquet');
    await findingsWriter.write(
      (async function* () {
        yield* PLANTED_FINDINGS;
      })(),
      file,
    );
    return new Uint8Array(await readFile(file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The key of the planted file under the archive root. */
export const plantedFindingsKey = (dt = '2026-09-30') => `findings/dt=${dt}/planted.parquet`;

/**
 * Writes a small findings dataset (`findings/dt=<day>/planted.parquet`) into a local archive folder, around
 * the committer: no digest lists it.
 */
export async function plantFindings(dir: string): Promise<void> {
  const file = path.join(dir, plantedFindingsKey());
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, await plantedFindingsParquet());
}
