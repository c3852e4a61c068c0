import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3rverHandle } from '../../devkit/startS3rver.ts';
import { forwardToS3, s3Error } from './s3Forward.ts';

export interface ReadOnlyS3Front {
  endpoint: string;
  /** Every request the front saw, as `METHOD path` (query string dropped), and the ones it refused. */
  requests: string[];
  refused: string[];
  close(): Promise<void>;
}

/**
 * An S3 front for s3rver that holds read-only credentials: GET and HEAD pass through, every other request
 * (PUT, POST, DELETE: a write, a multipart upload, a delete) is answered 403 AccessDenied, as S3 answers a
 * role with only `s3:GetObject` and `s3:ListBucket`. A command that claims to only read is run through it.
 */
export async function startReadOnlyS3Front(s3: S3rverHandle): Promise<ReadOnlyS3Front> {
  const upstream = new URL(s3.endpoint);
  const requests: string[] = [];
  const refused: string[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const line = `${req.method} ${(req.url ?? '').split('?')[0]}`;
    requests.push(line);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      refused.push(line);
      req.resume();
      s3Error(res, 403, 'AccessDenied', 'Access Denied', 'read-only-front');
      return;
    }
    void forwardToS3(upstream, req, res, 'read-only-front');
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
