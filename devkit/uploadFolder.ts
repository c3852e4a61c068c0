import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/**
 * Copies every file under `dir` that `keep` accepts (by its path relative to `dir`, `/`-separated) to
 * `bucket` under `prefix`, as `aws s3 sync` would a local archive; returns how many it copied.
 */
export async function uploadFolder(
  client: S3Client,
  dir: string,
  target: { bucket: string; prefix?: string },
  keep: (key: string) => boolean = () => true,
): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  let n = 0;
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const key = relative(dir, path);
    if (!keep(key)) continue;
    await client.send(
      new PutObjectCommand({
        Bucket: target.bucket,
        Key: `${target.prefix ?? ''}${key}`,
        Body: await readFile(path),
      }),
    );
    n++;
  }
  return n;
}
