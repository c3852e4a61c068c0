import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  endpoint: string;
  /** Each request's method, path and Authorization header. */
  seen: { method: string; path: string; authorization: string }[];
  close(): Promise<void>;
}

/** An HTTP proxy on 127.0.0.1 port 0 in front of `target`, recording who signed each request. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const seen: RecordingProxy['seen'] = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: String(req.headers.authorization ?? ''),
    });
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
