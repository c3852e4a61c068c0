import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * The live-session state is one item holding every open session, so it is stored gzip-compressed
 * (about 8x smaller than its JSON): DynamoDB's 400 KB item limit then allows several thousand open
 * sessions instead of a few hundred.
 */
export function encodeActiveData(data: unknown): Uint8Array {
  return gzipSync(Buffer.from(JSON.stringify(data), 'utf8'));
}

export function decodeActiveData(bytes: Uint8Array): unknown {
  return JSON.parse(gunzipSync(bytes).toString('utf8'));
}
