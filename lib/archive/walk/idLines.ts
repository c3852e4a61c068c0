import { createGunzip, createGzip } from 'node:zlib';
import { ArchiverError, ID_BYTES, IdSet } from '../../foundation/index.ts';

/** Ids an encoding chunk holds (about 2 MiB of hex lines). */
const IDS_A_CHUNK = 65_536;
const HEX_CHARS = ID_BYTES * 2;
const LINE = HEX_CHARS + 1;
const NEWLINE = 0x0a;

/**
 * Gzipped hex lines of `ids` (the format of a cut walk's ids and of a fan-out range's: a newline between
 * two ids, none after the last), encoded a chunk at a time: memory holds the set, one chunk of text and
 * the compressed output, never a string per id (a 10M-id day as one joined string and an array of
 * strings would need about 1 GiB more). An `IdSet`'s text is written from its words (`hexLines`); other
 * ids are written in their order.
 */
export async function gzipIdLines(ids: IdSet | Iterable<string>): Promise<Buffer> {
  const gzip = createGzip({ level: 1 });
  const out: Buffer[] = [];
  gzip.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve);
    gzip.once('error', reject);
  });
  for (const chunk of ids instanceof IdSet ? ids.hexLines(IDS_A_CHUNK) : stringChunks(ids)) {
    if (!gzip.write(chunk)) await new Promise((r) => gzip.once('drain', r));
  }
  gzip.end();
  await ended;
  return Buffer.concat(out);
}

/** The hex lines of ids given as strings, in their order, `IDS_A_CHUNK` ids a chunk. */
function* stringChunks(ids: Iterable<string>): Generator<Uint8Array> {
  let chunk = Buffer.allocUnsafe(IDS_A_CHUNK * LINE);
  let at = 0;
  let first = true;
  for (const id of ids) {
    if (at > chunk.length - LINE) {
      yield chunk.subarray(0, at);
      chunk = Buffer.allocUnsafe(IDS_A_CHUNK * LINE);
      at = 0;
    }
    if (!first) chunk[at++] = NEWLINE;
    first = false;
    at += chunk.write(id, at, 'latin1');
  }
  if (at > 0) yield chunk.subarray(0, at);
}

/**
 * Adds the ids of gzipped hex lines to `into`, decompressing a chunk at a time and parsing each line's
 * bytes where they lie (`IdSet.addHex`): the text is never whole in memory and no line becomes a string.
 * Empty lines are skipped; any other line that is not 32 hex characters fails (`INTERNAL`).
 */
export async function addIdLines(bytes: Uint8Array, into: IdSet): Promise<void> {
  const gunzip = createGunzip();
  // The start of a line that a chunk's end cut, completed by the next chunk.
  const carry = new Uint8Array(HEX_CHARS);
  let carried = 0;
  const line = (buf: Uint8Array, start: number, end: number): void => {
    if (end === start) return;
    if (end - start !== HEX_CHARS) throw notAnIdLine(buf, start, end);
    into.addHex(buf, start);
  };
  const take = (b: Buffer): void => {
    let start = 0;
    if (carried > 0) {
      const nl = b.indexOf(NEWLINE);
      const end = nl < 0 ? b.length : nl;
      if (carried + end > HEX_CHARS)
        throw notAnIdLine(Buffer.concat([carry.subarray(0, carried), b]), 0, carried + end);
      carry.set(b.subarray(0, end), carried);
      carried += end;
      if (nl < 0) return;
      line(carry, 0, carried);
      carried = 0;
      start = nl + 1;
    }
    for (let nl = b.indexOf(NEWLINE, start); nl >= 0; nl = b.indexOf(NEWLINE, start)) {
      line(b, start, nl);
      start = nl + 1;
    }
    if (b.length - start > HEX_CHARS) throw notAnIdLine(b, start, b.length);
    carry.set(b.subarray(start), 0);
    carried = b.length - start;
  };
  await new Promise<void>((resolve, reject) => {
    gunzip.on('data', (b: Buffer) => {
      try {
        take(b);
      } catch (error) {
        gunzip.destroy();
        reject(error);
      }
    });
    gunzip.once('end', resolve);
    gunzip.once('error', reject);
    gunzip.end(bytes);
  });
  line(carry, 0, carried);
}

function notAnIdLine(buf: Uint8Array, start: number, end: number): ArchiverError {
  const text = Buffer.from(buf.subarray(start, Math.min(end, start + 40))).toString('latin1');
  return new ArchiverError('INTERNAL', `an id must be 32 hex characters, got ${JSON.stringify(text)}`);
}

/** The ids of gzipped hex lines as a set (sized for `expected` ids when known). */
export async function idSetOfLines(bytes: Uint8Array, expected?: number): Promise<IdSet> {
  const ids = new IdSet(expected);
  await addIdLines(bytes, ids);
  return ids;
}
