import { createHash, createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { FindingEvents } from '../../lib/detect/findingEvents.ts';
import { ArchiverError } from '../../lib/errors/archiverError.ts';

const bytes = (d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof d === 'string'
    ? d
    : d instanceof ArrayBuffer
      ? new Uint8Array(d)
      : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

/** SHA-256 (and HMAC-SHA-256 with a secret) as the signer's checksum. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {}
}

/** How PutEvents is sent: a signed JSON POST (tests pass a recorder). */
export type PutEventsSender = (body: string) => Promise<{ status: number; text: string }>;

/** PutEvents on the default bus, signed with SigV4 and the Lambda's credentials. */
export function signedPutEvents(region: string, fetchFn: typeof fetch = fetch): PutEventsSender {
  const host = `events.${region}.amazonaws.com`;
  const signer = new SignatureV4({
    service: 'events',
    region,
    credentials: defaultProvider(),
    sha256: Sha256,
  });
  return async (body) => {
    const signed = await signer.sign({
      method: 'POST',
      protocol: 'https:',
      hostname: host,
      path: '/',
      headers: {
        host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSEvents.PutEvents',
      },
      body,
    });
    const res = await fetchFn(`https://${host}/`, { method: 'POST', headers: signed.headers, body });
    return { status: res.status, text: await res.text() };
  };
}

/**
 * The findings' events port on EventBridge's default bus (PutEvents, at most 10 entries a call). A
 * call that fails, or any entry EventBridge refused, is `STORE_FAILED`: the delivery stays in the
 * outbox and the next evaluation puts it again.
 */
export function eventBridgeFindingEvents(send: PutEventsSender): FindingEvents {
  return {
    async put(events) {
      for (let i = 0; i < events.length; i += 10) {
        const batch = events.slice(i, i + 10);
        const body = JSON.stringify({
          Entries: batch.map((e) => ({
            Source: e.source,
            DetailType: e.detailType,
            Detail: e.detail,
            Time: Math.floor(e.time.getTime() / 1000),
          })),
        });
        const res = await send(body);
        const parsed = (() => {
          try {
            return JSON.parse(res.text) as { FailedEntryCount?: number };
          } catch {
            return {};
          }
        })();
        if (res.status !== 200 || (parsed.FailedEntryCount ?? 0) > 0)
          throw new ArchiverError(
            'STORE_FAILED',
            `EventBridge PutEvents failed (${res.status}): ${res.text.slice(0, 300)}`,
          );
      }
    },
  };
}
