import { type DigestFile, type ObjectStore, readStringColumn } from '../../archive/index.ts';
import { ArchiverError, mapLimit } from '../../foundation/index.ts';
import { PartitionIds, readFileFacts } from './checkFiles.ts';
import type { ChainObject } from './checksumRotation.ts';
import type { VerifyFailure } from './verifyTypes.ts';

const CONCURRENCY = 8;

/**
 * Files new since the last check, in full, as `checkFiles` checks every file: present, SHA-256 and rows as
 * listed, every `record_id` 32 hex characters and none twice among them.
 */
export async function checkNewFiles(
  objects: ObjectStore,
  files: readonly { file: DigestFile; digest: string }[],
): Promise<{
  failures: VerifyFailure[];
  files: number;
  rows: number;
  records: number;
  /** Each file found, with the hash its digest lists and the store's time of it. */
  dated: ChainObject[];
}> {
  const failures: VerifyFailure[] = [];
  const dated: ChainObject[] = [];
  let rows = 0;
  let present = 0;
  const facts = await mapLimit(files, CONCURRENCY, async ({ file, digest }) => {
    const info = await objects.head(file.key);
    const read = info ? await readFileFacts(objects, info, file.dataset !== 'quarantine') : undefined;
    if (!read) {
      failures.push({
        kind: 'missing-file',
        object: file.key,
        message: `${file.key} is listed in ${digest} but is gone`,
      });
      return undefined;
    }
    present++;
    dated.push({
      key: file.key,
      sha256: file.sha256,
      ...(info?.modifiedAt ? { modifiedAt: info.modifiedAt } : {}),
    });
    rows += read.count ?? 0;
    if (read.sha !== file.sha256) {
      failures.push({
        kind: 'hash',
        object: file.key,
        message: `${file.key} has SHA-256 ${read.sha}, but ${digest} lists ${file.sha256}: its content changed`,
      });
    }
    if (file.dataset !== 'quarantine' && (read.count === null || read.count !== file.rows)) {
      failures.push({
        kind: 'rows',
        object: file.key,
        message: `${file.key} has ${read.count ?? 'no readable'} rows, but ${digest} lists ${file.rows ?? 'none'}`,
      });
    }
    return { file, read };
  });
  // Record ids, one partition at a time, in key order (as the full check).
  const history = facts
    .filter((f) => f !== undefined && f.file.dataset === 'history' && f.read.count !== null)
    .sort((a, b) => (a?.file.key ?? '').localeCompare(b?.file.key ?? ''));
  let partition: string | undefined;
  let ids = new PartitionIds();
  let records = 0;
  for (const f of history) {
    if (!f) continue;
    if (f.file.dt !== partition) {
      partition = f.file.dt ?? undefined;
      ids = new PartitionIds();
    }
    ids.startFile(f.file.key, f.read.count ?? 0);
    let malformed = 0;
    let twice = 0;
    try {
      for await (const id of readStringColumn(f.read.source, 'record_id')) {
        const other = ids.add(id);
        if (other === 'malformed') malformed++;
        else if (other === undefined) records++;
        else twice++;
      }
    } catch (error) {
      if (ArchiverError.is(error, 'STORE_FAILED')) throw error;
      failures.push({
        kind: 'rows',
        object: f.file.key,
        message: `${f.file.key} has no readable record_id column`,
      });
      continue;
    }
    if (malformed > 0) {
      failures.push({
        kind: 'rows',
        object: f.file.key,
        message: `${f.file.key} holds ${malformed} record_id(s) that are not 32 hex characters: not written by this archiver`,
      });
    }
    if (twice > 0) {
      failures.push({
        kind: 'duplicate',
        object: f.file.key,
        message: `${f.file.key} repeats ${twice} record_id(s) already archived in its partition`,
      });
    }
  }
  return { failures, files: present, rows, records, dated };
}
