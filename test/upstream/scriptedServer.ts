import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface SeenRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
}

/**
 * A node:http server on 127.0.0.1:0 answering each request with the next scripted handler.
 *
 * Why not the emulator (lib/archive/emulator): these tests drive the HTTP client itself, byte by byte: an exact
 * status, header or body per request in order, a socket cut half-way through a body, a body that stalls,
 * a server that never answers, connections counted for keep-alive. The emulator's fault knobs are rates
 * over a realistic API, not one scripted answer per request; the in-memory ScriptedUpstream has no HTTP.
 */
export interface ScriptedServer {
  url: string;
  requests: SeenRequest[];
  /** TCP connections accepted so far (keep-alive reuse keeps this at 1). */
  connections(): number;
  script(...handlers: Handler[]): void;
  /** Forgets the script and the seen requests (between tests). */
  clear(): void;
  close(): Promise<void>;
}

/** When the script runs out: a 418, which the client maps to BAD_REQUEST without retrying. */
const exhausted: Handler = (_req, res) => text(418, 'script exhausted')(_req, res);

export async function startScriptedServer(): Promise<ScriptedServer> {
  const queue: Handler[] = [];
  const requests: SeenRequest[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, headers: req.headers });
    (queue.shift() ?? exhausted)(req, res);
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    script: (...handlers) => {
      queue.push(...handlers);
    },
    clear: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return text(status, JSON.stringify(body), 'application/json', headers);
}

export function text(
  status: number,
  body: string,
  contentType = 'text/plain',
  headers: Record<string, string> = {},
): Handler {
  return (_req, res) => {
    const payload = Buffer.from(body);
    res.writeHead(status, { 'content-type': contentType, 'content-length': payload.length, ...headers });
    res.end(payload);
  };
}

/** Drops the connection without a response (a reset as the client sees it). */
export const dropConnection: Handler = (req) => {
  req.socket.destroy();
};

/** Announces the full length, sends half of the body, then cuts the connection. */
export function cutOff(body: unknown): Handler {
  return (req, res) => {
    const payload = Buffer.from(JSON.stringify(body));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': payload.length });
    res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => req.socket.destroy());
  };
}

/** A complete HTTP response whose JSON text stops half-way (a proxy that truncated it). */
export function truncatedJson(body: unknown): Handler {
  const whole = JSON.stringify(body);
  return text(200, whole.slice(0, Math.floor(whole.length / 2)), 'application/json');
}

/** Sends headers and the first bytes of the body, then goes silent (the server closes it at the end). */
export const stalledBody: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
  res.write('{"totalElements":');
};

/** Never answers at all. */
export const silent: Handler = () => {};
