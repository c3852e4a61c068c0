import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';

/** The findings the planted file holds (the findings dataset's columns; the report reads rule, severity, entity, last_seen). */
export const PLANTED_FINDINGS = [
  { rule: 'token-new-network', severity: 'high', entity: 'tok:ab12', last_seen: '2026-09-30T10:00:00.000Z' },
  { rule: 'token-new-network', severity: 'high', entity: 'tok:cd34', last_seen: '2026-09-29T08:00:00.000Z' },
  { rule: 'off-hours', severity: 'low', entity: '10.0.0.0/24', last_seen: '2026-09-30T23:00:00.000Z' },
];

/** The planted findings as one Parquet file. */
export function plantedFindingsParquet(): Uint8Array {
  const col = (name: keyof (typeof PLANTED_FINDINGS)[number]) => ({
    name,
    data: PLANTED_FINDINGS.map((f) => f[name]),
    type: 'STRING' as const,
  });
  const bytes = parquetWriteBuffer({
    columnData: [
      col('rule'),
      col('severity'),
      col('entity'),
      col('last_seen'),
      { name: 'count', data: [3, 1, 7], type: 'INT32' },
    ],
  });
  return new Uint8Array(bytes);
}

/** The key of the planted file under the archive root. */
export const plantedFindingsKey = (dt = '2026-09-30') => `findings/dt=${dt}/planted.parquet`;

/** Writes a small findings dataset (`findings/dt=<day>/planted.parquet`) into a local archive folder. */
export async function plantFindings(dir: string): Promise<void> {
  const file = path.join(dir, plantedFindingsKey());
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, plantedFindingsParquet());
}
