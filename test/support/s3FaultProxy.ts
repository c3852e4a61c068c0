import { forwardRequest, startProxyServer } from './proxyServer.ts';

/** What the proxy does to one request. */
export type S3Fault =
  /** Reads the request, then closes the connection without an answer (the client sees `socket hang up`). */
  | 'reset'
  /** Forwards it, then sends the answer's headers and half of its body, and closes the connection. */
  | 'cut-body'
  /** Answers 503 SlowDown without forwarding. */
  | 'slow-down'
  /** Answers 403 AccessDenied without forwarding. */
  | 'access-denied';

export interface S3Request {
  method: string;
  /** The decoded path (path-style: `/<bucket>/<key>`). */
  path: string;
  /** 1-based count of requests with this method and path, this one included. */
  n: number;
}

export interface S3FaultProxy {
  /** `http://127.0.0.1:PORT`: an S3 client's endpoint (path-style). */
  url: string;
  /** Every request seen, in order. */
  seen: S3Request[];
  close(): Promise<void>;
}

const XML = (code: string, message: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

/**
 * An HTTP proxy in front of an S3-compatible server (s3rver) that applies `faultFor`'s fault to a request,
 * or forwards it as sent. The faults are what S3 and the network do to a client: a connection reset under a
 * request, a response body cut short, a 503 SlowDown, a refusal.
 */
export async function startS3FaultProxy(
  target: string,
  faultFor: (request: S3Request) => S3Fault | undefined,
): Promise<S3FaultProxy> {
  const base = new URL(target);
  const seen: S3Request[] = [];
  const counts = new Map<string, number>();
  const server = await startProxyServer(async (req, body, res) => {
    const method = req.method ?? 'GET';
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] as string);
    const n = (counts.get(`${method} ${path}`) ?? 0) + 1;
    counts.set(`${method} ${path}`, n);
    const request = { method, path, n };
    seen.push(request);
    const fault = faultFor(request);
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === 'slow-down' || fault === 'access-denied') {
      const [status, code] = fault === 'slow-down' ? [503, 'SlowDown'] : [403, 'AccessDenied'];
      const xml = XML(code, fault);
      res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
      res.end(xml);
      return;
    }
    const upstream = await forwardRequest(base, req, body);
    res.writeHead(upstream.status, upstream.headers);
    if (fault === 'cut-body' && upstream.body.byteLength > 1) {
      res.write(upstream.body.subarray(0, Math.floor(upstream.body.byteLength / 2)), () =>
        req.socket.destroy(),
      );
      return;
    }
    res.end(upstream.body);
  });
  return { url: server.url, seen, close: server.close };
}
