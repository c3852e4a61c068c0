import { parquetRowCount, sha256OfBytes } from '../digest/describeDataFile.ts';
import { digestKeys } from '../digest/digestKeys.ts';
import type { DigestFile } from '../digest/digestSchema.ts';
import type { DigestChain } from '../digest/readDigestChain.ts';
import { readRecordIds } from '../parquet/readHistoryParquet.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import type { VerifyFailure } from './verifyTypes.ts';

export interface FileCheck {
  failures: VerifyFailure[];
  files: number;
  rows: number;
  /** Distinct `record_id`s across `history/`. */
  records: number;
  /** The `record_id`s of the partitions `keepIds` selected (for the upstream comparison). */
  recordIds: Set<string>;
}

/**
 * Data checks: every object under `history/` and `active/` is listed in exactly one digest, every
 * listed file exists with the listed SHA-256 and row count, and no `record_id` appears twice.
 * A record's id fixes its `start_time`, hence its `dt`, so doubles can only sit in one partition: ids
 * are held one partition at a time (memory bounded by the largest partition, not the archive), and
 * kept only for the partitions `keepIds` selects.
 */
export async function checkFiles(
  objects: ObjectStore,
  chain: DigestChain,
  keepIds: (dt: string) => boolean = () => false,
): Promise<FileCheck> {
  const failures: VerifyFailure[] = [];
  const listed = new Map<string, { file: DigestFile; digest: string }>();
  for (const e of chain.entries) {
    for (const file of e.digest?.files ?? []) {
      const earlier = listed.get(file.key);
      if (earlier) {
        failures.push({
          kind: 'chain',
          object: file.key,
          message: `${file.key} is listed in both ${earlier.digest} and ${e.key}`,
        });
        continue;
      }
      listed.set(file.key, { file, digest: e.key });
    }
  }
  const present = new Set<string>();
  let firstSeen = new Map<string, string>();
  let partition: string | undefined;
  let records = 0;
  const recordIds = new Set<string>();
  const duplicates = new Map<string, { a: string; b: string; n: number }>();
  let files = 0;
  let rows = 0;
  for (const prefix of digestKeys.dataPrefixes) {
    for await (const o of objects.list(prefix)) {
      present.add(o.key);
      const entry = listed.get(o.key);
      const bytes = await objects.get(o.key);
      if (!bytes) {
        present.delete(o.key); // removed between list and get
        continue;
      }
      files++;
      const count = await parquetRowCount(bytes);
      rows += count ?? 0;
      if (!entry) {
        failures.push({
          kind: 'unlisted',
          object: o.key,
          message: `${o.key} is not listed in any digest: an extra or foreign file`,
        });
      } else {
        const { file, digest } = entry;
        const sha = sha256OfBytes(bytes);
        if (sha !== file.sha256) {
          failures.push({
            kind: 'hash',
            object: o.key,
            message: `${o.key} has SHA-256 ${sha}, but ${digest} lists ${file.sha256}: its content changed`,
          });
        }
        if (count === null || count !== file.rows) {
          failures.push({
            kind: 'rows',
            object: o.key,
            message: `${o.key} has ${count ?? 'no readable'} rows, but ${digest} lists ${file.rows ?? 'none'}`,
          });
        }
      }
      if (!o.key.startsWith('history/') || count === null) continue;
      const dt = /^history\/([^/]+)\//.exec(o.key)?.[1] ?? '';
      if (dt !== partition) {
        // Keys are listed in order, so a partition's files are contiguous.
        partition = dt;
        firstSeen = new Map();
      }
      const keep = keepIds(dt.replace(/^dt=/, ''));
      for (const id of await readRecordIds(bytes)) {
        const other = firstSeen.get(id);
        if (other === undefined) {
          firstSeen.set(id, o.key);
          records++;
          if (keep) recordIds.add(id);
          continue;
        }
        const pair = `${other}\n${o.key}`;
        const d = duplicates.get(pair) ?? { a: other, b: o.key, n: 0 };
        d.n++;
        duplicates.set(pair, d);
      }
    }
  }
  for (const [key, { digest }] of listed) {
    if (!present.has(key)) {
      failures.push({
        kind: 'missing-file',
        object: key,
        message: `${key} is listed in ${digest} but is gone`,
      });
    }
  }
  for (const { a, b, n } of duplicates.values()) {
    // Blame the copy the digests do not list, when one of the two is unlisted.
    const [kept, extra] = !listed.has(a) && listed.has(b) ? [b, a] : [a, b];
    failures.push({
      kind: 'duplicate',
      object: extra,
      message:
        a === b
          ? `${b} holds ${n} record_id(s) twice`
          : `${extra} repeats ${n} record_id(s) also archived in ${kept}`,
    });
  }
  return { failures, files, rows, records, recordIds };
}
