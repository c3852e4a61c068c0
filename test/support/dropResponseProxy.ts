import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Rng, seedFrom } from '../../lib/emulator/prng.ts';

/** DynamoDB operations that change the table: the only ones whose response the proxy may drop. */
export const WRITE_OPERATIONS = ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems'] as const;

/** One write the server answered with 2xx, before the proxy decides whether the client hears it. */
export interface AppliedWrite {
  /** `PutItem`, `UpdateItem`... (the part of `X-Amz-Target` after the dot). */
  operation: string;
  /** 1-based count of applied writes so far, this one included. */
  n: number;
  /** The request body (DynamoDB JSON). */
  body: string;
}

export interface DropResponseProxyOptions {
  /** Base URL of the DynamoDB-compatible server, e.g. dynalite's `http://127.0.0.1:PORT`. */
  target: string;
  /** Share of applied writes whose response is dropped (default 0.1). */
  dropRate?: number;
  /** Seed of the drop decisions (default 1): the same sequence of writes gets the same drops. */
  seed?: number | string;
  /** Overrides `dropRate`: drop exactly when this returns true. */
  shouldDrop?: (write: AppliedWrite) => boolean;
}

export interface DropResponseProxyStats {
  /** Every request forwarded to the server. */
  forwarded: number;
  /** Write requests the server applied (2xx). */
  applied: number;
  /** Applied writes whose response the client never got. */
  dropped: number;
  /** Applied writes by operation. */
  appliedByOperation: Record<string, number>;
}

export interface DropResponseProxy {
  /** `http://127.0.0.1:PORT`: use it as the DynamoDB client's endpoint. */
  url: string;
  stats(): DropResponseProxyStats;
  /** Changes the drop rule for later writes (`0` turns dropping off). */
  setDropRate(rate: number): void;
  setShouldDrop(rule: ((write: AppliedWrite) => boolean) | undefined): void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of a DynamoDB-compatible server that forwards every request and, for a seeded
 * share of the WRITES the server applied (2xx), destroys the client's socket instead of answering. The
 * AWS SDK sees a network error and retries, which is how "applied, but the response was lost" happens
 * in production: a conditional put's retry then fails with ConditionalCheckFailed.
 *
 * Why separate: it fakes no upstream at all; it stands between the AWS SDK and dynalite, the state
 * store's real peer, which neither the emulator nor the scripted upstreams can reach.
 */
export async function startDropResponseProxy(options: DropResponseProxyOptions): Promise<DropResponseProxy> {
  const target = new URL(options.target);
  let rate = options.dropRate ?? 0.1;
  let rule = options.shouldDrop;
  const rng = new Rng(seedFrom(options.seed ?? 1, 'drop-response'));
  const stats: DropResponseProxyStats = { forwarded: 0, applied: 0, dropped: 0, appliedByOperation: {} };
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const amzTarget = String(req.headers['x-amz-target'] ?? '');
    const operation = amzTarget.slice(amzTarget.lastIndexOf('.') + 1);
    stats.forwarded++;
    const upstream = await forward(target, req, body);
    const isWrite = (WRITE_OPERATIONS as readonly string[]).includes(operation);
    if (isWrite && upstream.status >= 200 && upstream.status < 300) {
      stats.applied++;
      stats.appliedByOperation[operation] = (stats.appliedByOperation[operation] ?? 0) + 1;
      // One draw per applied write, whatever the rule, so the rate's stream stays aligned.
      const draw = rng.next();
      const write: AppliedWrite = { operation, n: stats.applied, body: body.toString('utf8') };
      if (rule ? rule(write) : draw < rate) {
        stats.dropped++;
        req.socket.destroy();
        return;
      }
    }
    res.writeHead(upstream.status, upstream.headers);
    res.end(upstream.body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // The server is unreachable or failed mid-answer: the client sees a broken connection.
      req.socket.destroy();
    });
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
    stats: () => ({ ...stats, appliedByOperation: { ...stats.appliedByOperation } }),
    setDropRate: (next) => {
      rate = next;
    },
    setShouldDrop: (next) => {
      rule = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Sends the request as received (method, path, headers, body) and reads the whole answer. */
function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    // The Host header is kept as signed (dynalite does not check signatures, but nothing is rewritten).
    const headers = { ...req.headers };
    const out = httpRequest(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (upstream) => {
        const chunks: Buffer[] = [];
        upstream.on('data', (c: Buffer) => chunks.push(c));
        upstream.on('error', reject);
        upstream.on('end', () => {
          const copied: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(upstream.headers)) if (v !== undefined) copied[k] = v;
          resolve({ status: upstream.statusCode ?? 502, headers: copied, body: Buffer.concat(chunks) });
        });
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}
