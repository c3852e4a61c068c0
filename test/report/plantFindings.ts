import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';

/** The findings the planted file holds (issue 20's columns; the report reads rule, severity, entity, last_seen). */
export const PLANTED_FINDINGS = [
  { rule: 'token-new-network', severity: 'high', entity: 'tok:ab12', last_seen: '2026-09-30T10:00:00.000Z' },
  { rule: 'token-new-network', severity: 'high', entity: 'tok:cd34', last_seen: '2026-09-29T08:00:00.000Z' },
  { rule: 'off-hours', severity: 'low', entity: '10.0.0.0/24', last_seen: '2026-09-30T23:00:00.000Z' },
];

/** Writes a small findings dataset (`findings/dt=<day>/planted.parquet`) into a local archive folder. */
export async function plantFindings(dir: string, dt = '2026-09-30'): Promise<void> {
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
  const folder = path.join(dir, 'findings', `dt=${dt}`);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, 'planted.parquet'), new Uint8Array(bytes));
}
