import { createHash } from 'node:crypto';
import { ArchiverError } from '../../foundation/index.ts';
import type { Dataset, ManifestFile } from '../state/partitionManifest.ts';
import { type ByteSource, objectSource } from '../store/byteSource.ts';
import type { ObjectStore } from '../store/objectStore.ts';

/** Bytes read a request when a store keeps no checksum: memory holds one chunk, never the file. */
const CHUNK = 1024 * 1024;

async function sha256Of(source: ByteSource): Promise<string> {
  const hash = createHash('sha256');
  const buffer = new Uint8Array(Math.min(CHUNK, source.byteLength));
  for (let at = 0; at < source.byteLength; at += CHUNK)
    hash.update(await source.read(at, Math.min(source.byteLength, at + CHUNK), buffer));
  return hash.digest('hex');
}

/** What a stored file was found to be, against what its manifest entry recorded at staging. */
export interface StagedFileMismatch {
  key: string;
  expected: { bytes: number; sha256?: string };
  found: { bytes: number; sha256?: string };
}

/**
 * Whether the object at `key` holds the bytes `file` recorded at staging: its size and SHA-256. Entries
 * written before the hash was recorded are not checked (they are published as they always were). The SHA-256 comes
 * from the store's own full-object checksum when it keeps one (S3 computes and checks it on upload, so a
 * writer cannot claim one its bytes do not have), else from reading the bytes. Returns the mismatch, or
 * undefined when the file is what was staged.
 */
export async function stagedFileMismatch(
  objects: ObjectStore,
  key: string,
  file: Pick<ManifestFile, 'bytes' | 'sha256'>,
  size: number,
): Promise<StagedFileMismatch | undefined> {
  if (file.sha256 === undefined) return undefined;
  const expected = { bytes: file.bytes, sha256: file.sha256 };
  if (size !== file.bytes) return { key, expected, found: { bytes: size } };
  const stored = await objects.storedChecksum?.(key);
  const sha256 = stored?.sha256 ?? (await sha256Of(objectSource(objects, key, size)));
  return sha256 === file.sha256 ? undefined : { key, expected, found: { bytes: size, sha256 } };
}

/** The error of a staged file that is not what its writer staged: it blocks that file only. */
export function stagedFileChanged(
  dataset: Dataset,
  dt: string,
  file: ManifestFile,
  mismatch: StagedFileMismatch,
): ArchiverError {
  return new ArchiverError(
    'STAGED_FILE_CHANGED',
    `Partition ${dataset}/dt=${dt} lists ${file.name}, staged with ${describe(mismatch.expected)}, but ` +
      `${mismatch.key} now holds ${describe(mismatch.found)}: someone changed it after it was staged. It is not ` +
      'published and leaves the manifest (its records are archived again while their day is in the window); ' +
      'the staged object stays for inspection until the sweep removes it. Find who wrote it in the bucket ' +
      "access log or CloudTrail's data events.",
    { details: { dataset, dt, file: file.name, ...mismatch } },
  );
}

function describe(x: { bytes: number; sha256?: string }): string {
  return `${x.bytes} bytes${x.sha256 === undefined ? '' : `, SHA-256 ${x.sha256}`}`;
}
