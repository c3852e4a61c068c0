import { Rng, seedFrom } from '../../lib/archive/emulator/prng.ts';
import { forwardRequest, startProxyServer } from './proxyServer.ts';

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

  const server = await startProxyServer(async (req, body, res) => {
    const amzTarget = String(req.headers['x-amz-target'] ?? '');
    const operation = amzTarget.slice(amzTarget.lastIndexOf('.') + 1);
    stats.forwarded++;
    const upstream = await forwardRequest(target, req, body);
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
  });

  return {
    url: server.url,
    stats: () => ({ ...stats, appliedByOperation: { ...stats.appliedByOperation } }),
    setDropRate: (next) => {
      rate = next;
    },
    setShouldDrop: (next) => {
      rule = next;
    },
    close: server.close,
  };
}
