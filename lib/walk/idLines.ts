import { createGunzip, createGzip } from 'node:zlib';
import { ID_BYTES, IdSet } from '../ids/idSet.ts';

/** Ids an encoding chunk holds (about 2 MiB of hex lines). */
const IDS_A_CHUNK = 65_536;
const LINE = ID_BYTES * 2 + 1;
const NEWLINE = 0x0a;

/**
 * Gzipped hex lines of `ids` (the format of a cut walk's ids and of a fan-out range's), encoded a chunk
 * at a time: memory holds the set, one chunk of text and the compressed output, never a string per id
 * (a 10M-id day as one joined string and an array of strings would need about 1 GiB more).
 */
export async function gzipIdLines(ids: Iterable<string>): Promise<Buffer> {
  const gzip = createGzip({ level: 1 });
  const out: Buffer[] = [];
  gzip.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve);
    gzip.once('error', reject);
  });
  let chunk = Buffer.allocUnsafe(IDS_A_CHUNK * LINE);
  let at = 0;
  let first = true;
  const flush = async () => {
    if (at === 0) return;
    if (!gzip.write(chunk.subarray(0, at))) await new Promise((r) => gzip.once('drain', r));
    chunk = Buffer.allocUnsafe(IDS_A_CHUNK * LINE);
    at = 0;
  };
  for (const id of ids) {
    if (!first) chunk[at++] = NEWLINE;
    first = false;
    at += chunk.write(id, at, 'latin1');
    if (at > chunk.length - LINE) await flush();
  }
  await flush();
  gzip.end();
  await ended;
  return Buffer.concat(out);
}

/**
 * Adds the ids of gzipped hex lines to `into`, decompressing a chunk at a time: the text is never whole
 * in memory, and no line becomes a string that outlives its `add`. A line that is not an id fails.
 */
export async function addIdLines(bytes: Uint8Array, into: IdSet): Promise<void> {
  const gunzip = createGunzip();
  let carry = '';
  const take = (text: string): void => {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      if (nl > start) into.add(text.slice(start, nl));
      start = nl + 1;
    }
    carry = text.slice(start);
  };
  await new Promise<void>((resolve, reject) => {
    gunzip.on('data', (b: Buffer) => {
      try {
        take(carry + b.toString('latin1'));
      } catch (error) {
        gunzip.destroy();
        reject(error);
      }
    });
    gunzip.once('end', resolve);
    gunzip.once('error', reject);
    gunzip.end(bytes);
  });
  if (carry) into.add(carry);
}

/** The ids of gzipped hex lines as a set (sized for `expected` ids when known). */
export async function idSetOfLines(bytes: Uint8Array, expected?: number): Promise<IdSet> {
  const ids = new IdSet(expected);
  await addIdLines(bytes, ids);
  return ids;
}
