import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256OfFile } from '../../lib/foundation/fs/sha256OfFile.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

describe('sha256OfFile: the SHA-256 of a local file', () => {
  const tmp = tempDirPer('ta-sha256-');

  const fileOf = async (name: string, bytes: Uint8Array) => {
    const path = join(tmp.dir, name);
    await writeFile(path, bytes);
    return path;
  };

  // Empty, under one read, exactly one read, and reads that end mid-buffer.
  it.each([0, 1, 1024 * 1024, 1024 * 1024 + 1, 2.5 * 1024 * 1024])(
    'hashes every byte of a %i-byte file',
    async (size) => {
      const bytes = randomBytes(size);
      const path = await fileOf(`f${size}`, bytes);
      expect(await sha256OfFile(path, 'hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(await sha256OfFile(path, 'base64')).toBe(createHash('sha256').update(bytes).digest('base64'));
    },
  );

  it('refuses a missing file', async () => {
    await expect(sha256OfFile(join(tmp.dir, 'missing'), 'hex')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
