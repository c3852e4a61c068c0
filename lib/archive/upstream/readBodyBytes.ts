import type { Readable } from 'node:stream';

export interface BodyBytes {
  bytes: Buffer;
  /** True when the body was longer than the limit and `bytes` holds only its start. */
  truncated: boolean;
}

/**
 * Reads at most `keepBytes` of a response body, then drains (without keeping) up to `drainBytes` more so
 * the keep-alive connection can be reused; a longer body is destroyed instead. Never throws for a body
 * that is merely large; transport errors do propagate.
 */
export async function readBodyBytes(
  body: Readable,
  keepBytes: number,
  drainBytes = 256 * 1024,
): Promise<BodyBytes> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seen = 0;
  let truncated = false;
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    seen += buf.length;
    if (keptBytes < keepBytes) {
      const part = buf.subarray(0, keepBytes - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    if (seen > keepBytes) truncated = true;
    if (seen > keepBytes + drainBytes) {
      body.destroy();
      break;
    }
  }
  return { bytes: kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept), truncated };
}
