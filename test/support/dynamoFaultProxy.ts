import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** What the proxy answers in the server's place: a status and a DynamoDB JSON body. */
export interface ProxyAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface DynamoFaultProxy {
  /** `http://127.0.0.1:PORT`: the DynamoDB client's endpoint (`AWS_ENDPOINT_URL_DYNAMODB`). */
  url: string;
  /** Every operation asked for, in order (`DescribeTable`, `CreateTable`...), answered by either side. */
  operations(): string[];
  /** The request bodies (DynamoDB JSON) of one operation, in order. */
  requests(operation: string): Record<string, unknown>[];
  close(): Promise<void>;
}

/** DynamoDB's error answer, as the SDK parses it (`__type` names the exception). */
export function dynamoError(status: number, type: string, message: string): ProxyAnswer {
  return { status, body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message } };
}

/**
 * An HTTP proxy in front of a DynamoDB-compatible server (dynalite) that records every operation and lets
 * `answer` reply in the server's place: what dynalite cannot act, such as IAM refusing an action
 * (`AccessDeniedException`) or an operation it does not implement (point-in-time recovery).
 */
export async function startDynamoFaultProxy(options: {
  target: string;
  answer?: (operation: string) => ProxyAnswer | undefined;
}): Promise<DynamoFaultProxy> {
  const target = new URL(options.target);
  const seen: { operation: string; body: string }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const amzTarget = String(req.headers['x-amz-target'] ?? '');
      const operation = amzTarget.slice(amzTarget.lastIndexOf('.') + 1);
      seen.push({ operation, body: Buffer.concat(chunks).toString('utf8') });
      const own = options.answer?.(operation);
      if (own !== undefined) {
        res.writeHead(own.status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(own.body));
        return;
      }
      forward(target, req, Buffer.concat(chunks), (status, headers, body) => {
        res.writeHead(status, headers);
        res.end(body);
      }).catch(() => req.socket.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy did not bind a TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    operations: () => seen.map((s) => s.operation),
    requests: (operation) =>
      seen.filter((s) => s.operation === operation).map((s) => JSON.parse(s.body) as Record<string, unknown>),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

function forward(
  target: URL,
  req: IncomingMessage,
  body: Buffer,
  reply: (status: number, headers: Record<string, string | string[]>, body: Buffer) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (upstream) => {
        const chunks: Buffer[] = [];
        upstream.on('data', (c: Buffer) => chunks.push(c));
        upstream.on('error', reject);
        upstream.on('end', () => {
          const headers: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(upstream.headers)) if (v !== undefined) headers[k] = v;
          reply(upstream.statusCode ?? 502, headers, Buffer.concat(chunks));
          resolve();
        });
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}
