import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../lib/analytics/query/sqlString.ts';
import { recordIdentity } from '../lib/archive/records/recordId.ts';
import { validateHistoryRecord } from '../lib/archive/records/validateHistoryRecord.ts';

/** The file the script saves its `n`th page body in (numbered from 0, in the order they came). */
export function scriptPageFile(dir: string, n: number): string {
  return join(dir, `page-${String(n).padStart(6, '0')}.json`);
}

/**
 * The first `sample` valid records of the pages saved in `dir` ({@link scriptPageFile}), each with the ids the
 * archiver gives it under `tokenKey`, must be rows of the Parquet file `out` with the same two ids: else the
 * script's ids are not the archive's. Returns how many distinct records were checked; throws when one differs,
 * or when there was nothing to check.
 */
export async function checkScriptIds(
  conn: DuckDBConnection,
  dir: string,
  out: string,
  tokenKey: Uint8Array,
  opts: { sample: number; now: Date },
): Promise<number> {
  const expected: { record_id: string; session_id: string }[] = [];
  for (let page = 0; expected.length < opts.sample; page++) {
    const body = await readFile(scriptPageFile(dir, page), 'utf8').catch(() => undefined);
    if (body === undefined) break;
    for (const raw of (JSON.parse(body) as { content: unknown[] }).content) {
      if (expected.length >= opts.sample) break;
      const v = validateHistoryRecord(raw, opts.now);
      if (v.ok) expected.push(recordIdentity(v.record, tokenKey));
    }
  }
  if (expected.length === 0) throw new Error('no saved record to check the script ids against');
  const list = expected.map((e) => `(${sqlString(e.record_id)}, ${sqlString(e.session_id)})`).join(',');
  const found = await conn.runAndReadAll(
    `SELECT count(DISTINCT record_id) FROM read_parquet(${sqlString(out)}) WHERE (record_id, session_id) IN (${list})`,
  );
  const n = Number(found.getRows()[0]?.[0]);
  const distinct = new Set(expected.map((e) => e.record_id)).size;
  if (n !== distinct)
    throw new Error(`the script's ids differ from the archiver's: ${n} of ${distinct} found`);
  return distinct;
}
