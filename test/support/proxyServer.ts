import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** An answer read in full from the server behind a proxy. */
export interface ForwardedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** A proxy's handler: the request with its body read in full. */
export type ProxyHandler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => Promise<void>;

export interface ProxyServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 for a test's proxy: reads each request's body, then calls `handle`. A
 * handler that throws (the server behind it unreachable, or failing mid-answer) closes the connection, as
 * a broken network would.
 */
export async function startProxyServer(handle: ProxyHandler): Promise<ProxyServer> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      await handle(req, Buffer.concat(chunks), res);
    })().catch(() => req.socket.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy did not bind a TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** Sends the request as received (method, path, headers as signed, body) to `target`; reads the whole answer. */
export function forwardRequest(target: URL, req: IncomingMessage, body: Buffer): Promise<ForwardedAnswer> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers },
      },
      (upstream) => {
        const chunks: Buffer[] = [];
        upstream.on('data', (c: Buffer) => chunks.push(c));
        upstream.on('error', reject);
        upstream.on('end', () => {
          const headers: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(upstream.headers)) if (v !== undefined) headers[k] = v;
          resolve({ status: upstream.statusCode ?? 502, headers, body: Buffer.concat(chunks) });
        });
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}
