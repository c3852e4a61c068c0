import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256OfSource } from '../../lib/archive/digest/describeDataFile.ts';
import type { ByteSource } from '../../lib/archive/store/byteSource.ts';

/** A source that reads into the buffer it is given, and notes every buffer it was given. */
function recordingSource(bytes: Uint8Array): { source: ByteSource; given: (Uint8Array | undefined)[] } {
  const given: (Uint8Array | undefined)[] = [];
  return {
    given,
    source: {
      byteLength: bytes.byteLength,
      read: async (start, end, into) => {
        given.push(into);
        const slice = bytes.subarray(start, end);
        if (into === undefined || into.byteLength < slice.byteLength) return slice.slice();
        into.set(slice);
        return into.subarray(0, slice.byteLength);
      },
    },
  };
}

describe('sha256OfSource', () => {
  it.each([0, 1, 1024 * 1024 - 1, 1024 * 1024, 3 * 1024 * 1024 + 17])(
    'hashes %i bytes as SHA-256 of the whole, reading every chunk into one buffer',
    async (size) => {
      const bytes = randomBytes(size);
      const { source, given } = recordingSource(bytes);
      expect(await sha256OfSource(source)).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(given).toHaveLength(Math.ceil(size / (1024 * 1024)));
      // One buffer for every chunk: hashing a big file leaves no chunk a read to the garbage collector.
      expect(new Set(given).size).toBeLessThanOrEqual(1);
      if (size > 0) expect(given[0]).toBeInstanceOf(Uint8Array);
    },
  );
});
