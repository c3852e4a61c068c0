import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type S3rverHandle, s3rverClient } from '../../devkit/startS3rver.ts';
import { forwardToS3, s3Error } from './s3Forward.ts';

export interface WriteOnceFront {
  endpoint: string;
  /** An S3 client that talks to the front (configured as the s3rver one). */
  client: S3Client;
  /** What the front answered instead of s3rver: the branches a racing writer meets. */
  stats: { preconditionFailed: number; conflicts: number; conditionalWrites: number };
  /**
   * Runs when a conditional write to `bucket`/`key` has arrived and before the front decides it: after the
   * writer's own check (its HEAD), before its write. A test creates the target here, and the 412 branch runs
   * deterministically, not by chance. Unset: nothing runs.
   */
  beforeDecide: ((bucket: string, key: string) => Promise<void>) | undefined;
  close(): Promise<void>;
}

/**
 * An S3 front for s3rver, which ignores `If-None-Match`: it enforces the header as S3 does, atomically
 * per key. A conditional PUT (or copy) to a key that exists gets 412 PreconditionFailed; one that arrives
 * while another conditional write to the same key is in flight gets 409 ConditionalRequestConflict.
 * Everything else passes through unchanged. `holdMs` keeps each conditional write in flight that long
 * before it is decided, so two racing writers deterministically meet each other there.
 */
export async function startWriteOnceFront(
  s3: S3rverHandle,
  opts: { holdMs?: number } = {},
): Promise<WriteOnceFront> {
  const upstream = new URL(s3.endpoint);
  const inFlight = new Set<string>();
  const stats = { preconditionFailed: 0, conflicts: 0, conditionalWrites: 0 };
  const hooks: Pick<WriteOnceFront, 'beforeDecide'> = { beforeDecide: undefined };
  const fail = (res: ServerResponse, status: number, code: string, message: string) =>
    s3Error(res, status, code, message, 'front');
  const forward = (req: IncomingMessage, res: ServerResponse) => forwardToS3(upstream, req, res, 'front');
  const server = createServer(async (req, res) => {
    if (req.method !== 'PUT' || req.headers['if-none-match'] !== '*') return void (await forward(req, res));
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    const [, bucket = '', ...rest] = path.split('/');
    const key = rest.join('/');
    stats.conditionalWrites++;
    if (inFlight.has(path)) {
      stats.conflicts++;
      req.resume();
      return fail(
        res,
        409,
        'ConditionalRequestConflict',
        'A conflicting conditional operation is in progress',
      );
    }
    inFlight.add(path);
    try {
      if (opts.holdMs) await new Promise((r) => setTimeout(r, opts.holdMs));
      await hooks.beforeDecide?.(bucket, key);
      const exists = await s3.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then(
        () => true,
        () => false,
      );
      if (exists) {
        stats.preconditionFailed++;
        req.resume();
        return fail(
          res,
          412,
          'PreconditionFailed',
          'At least one of the pre-conditions you specified did not hold',
        );
      }
      await forward(req, res);
    } finally {
      inFlight.delete(path);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = s3rverClient(endpoint);
  return {
    endpoint,
    client,
    stats,
    get beforeDecide() {
      return hooks.beforeDecide;
    },
    set beforeDecide(hook) {
      hooks.beforeDecide = hook;
    },
    async close() {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
