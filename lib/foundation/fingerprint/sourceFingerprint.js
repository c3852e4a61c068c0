// Plain JavaScript, so that bin/importTs.js (which runs before any TypeScript can) shares it with lib/.
import { createHash } from 'node:crypto';

/**
 * A digest of every input's path and bytes, as recorded beside a bundle: the bundle is current while it
 * matches. Contents, not size and mtime: an edit that keeps both (a coarse clock, a restored mtime, a
 * checkout) still changes it. `read` gives an input's bytes and throws for one that is missing, which
 * is part of the digest too.
 *
 * @param {readonly string[]} inputs
 * @param {(input: string) => Uint8Array} read
 * @returns {string}
 */
export function sourceFingerprint(inputs, read) {
  const h = createHash('sha256');
  for (const input of inputs) {
    let bytes;
    try {
      bytes = read(input);
    } catch {
      h.update(`${input}\0missing\n`);
      continue;
    }
    h.update(`${input}\0${bytes.length}\0`);
    h.update(bytes);
  }
  return h.digest('hex');
}
