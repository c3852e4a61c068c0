import { type DigestFile, type ObjectStore, objectSource, sha256OfSource } from '../../archive/index.ts';
import { mapLimit } from '../../foundation/index.ts';
import type { VerifyFailure } from './verifyTypes.ts';

const CONCURRENCY = 8;

/**
 * Listed files checked again: each against the full-object SHA-256 the store keeps (one HEAD, no bytes),
 * or, when it keeps none, by reading and hashing it. An unchanged hash means unchanged rows and record
 * ids, which were checked in full when the file was new.
 */
export async function checkStoredFiles(
  objects: ObjectStore,
  files: readonly { file: DigestFile; digest: string }[],
): Promise<{ failures: VerifyFailure[]; byChecksum: number; read: number }> {
  const failures: VerifyFailure[] = [];
  let byChecksum = 0;
  let read = 0;
  await mapLimit(files, CONCURRENCY, async ({ file, digest }) => {
    const stored = objects.storedChecksum
      ? await objects.storedChecksum(file.key)
      : await objects.head(file.key);
    if (stored === undefined) {
      failures.push({
        kind: 'missing-file',
        object: file.key,
        message: `${file.key} is listed in ${digest} but is gone`,
      });
      return;
    }
    let sha = 'sha256' in stored ? stored.sha256 : undefined;
    if (sha !== undefined) byChecksum++;
    else {
      read++;
      sha = await sha256OfSource(objectSource(objects, file.key, stored.size));
    }
    if (sha !== file.sha256 || stored.size !== file.bytes) {
      failures.push({
        kind: 'hash',
        object: file.key,
        message: `${file.key} has SHA-256 ${sha} (${stored.size} bytes), but ${digest} lists ${file.sha256} (${file.bytes} bytes): its content changed`,
      });
    }
  });
  return { failures, byChecksum, read };
}
