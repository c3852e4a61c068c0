import { writeFile } from 'node:fs/promises';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import {
  ATHENA_TYPE,
  type ColumnSpec,
  type CommitResult,
  type DatasetWriter,
  DEFAULT_PARQUET_COMPRESSION,
  type PartitionCommitter,
  parquetCompressors,
  readRowGroups,
  schemaElements,
  sha256Hex,
} from '../../archive/index.ts';
import { ArchiverError, type Day, toDay } from '../../foundation/index.ts';
import type { Finding } from './finding.ts';

type FindingColumn = ColumnSpec<Omit<Finding, 'dt'>>;

/** The columns of `findings/dt=<day>/*.parquet` (the Glue table `tunnel_findings` is generated from this). */
const COLUMNS: readonly FindingColumn[] = [
  { name: 'finding_id', kind: 'string', nullable: false },
  { name: 'rule_id', kind: 'string', nullable: false },
  { name: 'title', kind: 'string', nullable: false },
  { name: 'severity', kind: 'string', nullable: false },
  { name: 'source', kind: 'string', nullable: false },
  { name: 'entity', kind: 'string', nullable: false },
  { name: 'token_hmac', kind: 'string', nullable: true },
  { name: 'client_network', kind: 'string', nullable: true },
  { name: 'session_id', kind: 'string', nullable: true },
  { name: 'first_seen', kind: 'timestamp', nullable: false },
  { name: 'last_seen', kind: 'timestamp', nullable: false },
  { name: 'hits', kind: 'int', nullable: false },
  { name: 'record_ids', kind: 'string_list', nullable: false },
  { name: 'dedupe_key', kind: 'string', nullable: false },
  { name: 'detected_at', kind: 'timestamp', nullable: false },
  { name: 'rule_uid', kind: 'string', nullable: false },
  { name: 'updated_at', kind: 'timestamp', nullable: false },
  { name: 'revision', kind: 'int', nullable: false },
  { name: 'record_count', kind: 'int', nullable: false },
];

/** Glue columns of the findings table, in file order (the stack's table and the local views use these). */
export const FINDINGS_COLUMNS = COLUMNS.map((c) => ({ name: c.name, athenaType: ATHENA_TYPE[c.kind] }));

/** Glue table name of the findings dataset. */
export const FINDINGS_TABLE = 'tunnel_findings';

async function writeFindingsParquet(rows: readonly Finding[], localPath: string): Promise<{ rows: number }> {
  const writer = new ByteWriter();
  const parquet = new ParquetWriter({
    writer,
    schema: [{ name: 'root', num_children: COLUMNS.length }, ...COLUMNS.flatMap(schemaElements)],
    codec: DEFAULT_PARQUET_COMPRESSION,
    compressors: parquetCompressors(DEFAULT_PARQUET_COMPRESSION),
    statistics: true,
  });
  const columnData = COLUMNS.map((c) => ({ name: c.name, data: rows.map((r) => r[c.name]) }));
  if (rows.length > 0) await parquet.write({ columnData });
  await parquet.finish();
  try {
    await writeFile(localPath, new Uint8Array(writer.getBuffer()), { mode: 0o600 });
  } catch (cause) {
    throw new ArchiverError('STORE_FAILED', `writing ${localPath} failed: ${(cause as Error).message}`, {
      cause,
    });
  }
  return { rows: rows.length };
}

/** A row's id in its partition (32 hex): the incident's id for its first revision, a hash of id and revision after. */
const rowIdOf = (f: Pick<Finding, 'finding_id' | 'revision'>) =>
  f.revision === 0 ? f.finding_id : sha256Hex(`${f.finding_id}#${f.revision}`).slice(0, 32);

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

/**
 * `findings/`: one row per incident revision that was delivered (new, then each update), keyed by
 * `finding_id` and `revision`, in the partition of the day it was written.
 */
export const findingsWriter: DatasetWriter<Finding> = {
  dataset: 'findings',
  idOf: (row) => rowIdOf(row),
  readIds: async function* (source) {
    for await (const rows of readRowGroups(source, ['finding_id', 'revision']))
      for (const row of rows)
        yield rowIdOf({ finding_id: String(row.finding_id), revision: Number(row.revision ?? 0) });
  },
  // A handful of findings per evaluation: one file, written from memory.
  write: async (rows, localPath) => writeFindingsParquet(await collect(rows), localPath),
};

/**
 * Commits findings through the archive's committer (staged file, conditional manifest write, publish),
 * one partition per `dt`, so they are listed by the digest chain and checked by `verify` like history.
 * A finding already stored (same id) is not written again.
 */
export async function commitFindings(
  committer: PartitionCommitter,
  findings: readonly Finding[],
): Promise<CommitResult> {
  const byDt = new Map<Day, Finding[]>();
  for (const f of findings) {
    const dt = toDay(f.updated_at);
    byDt.set(dt, [...(byDt.get(dt) ?? []), f]);
  }
  const total: CommitResult = { newRecords: 0, files: 0, bytes: 0 };
  for (const [dt, rows] of [...byDt].sort(([a], [b]) => a.localeCompare(b))) {
    const r = await committer.commit(findingsWriter, dt, new Set(rows.map(rowIdOf)), async function* () {
      for (const f of rows) yield [rowIdOf(f), f] as const;
    });
    total.newRecords += r.newRecords;
    total.files += r.files;
    total.bytes += r.bytes;
  }
  return total;
}
