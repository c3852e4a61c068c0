import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One entry the stub took. */
export interface PutEntry {
  Source: string;
  DetailType: string;
  Detail: string;
  EventBusName?: string;
}

export interface EventBridgeStubHandle {
  /** For `AWS_ENDPOINT_URL_EVENTBRIDGE`. */
  endpoint: string;
  /** Entries put, in order. */
  entries: PutEntry[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

/**
 * The one EventBridge call the functions make (`PutEvents`, AWS JSON 1.1), on 127.0.0.1 port 0; every
 * entry is kept. Any other action gets the error EventBridge sends for an unknown operation.
 */
export async function startEventBridgeStub(): Promise<EventBridgeStubHandle> {
  const entries: PutEntry[] = [];
  const server = createServer(async (req, res) => {
    const body = (await readJson(req)) as { Entries?: PutEntry[] };
    res.setHeader('content-type', 'application/x-amz-json-1.1');
    if (req.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: 'UnknownOperationException', message: 'stub does only PutEvents' }));
      return;
    }
    const put = body.Entries ?? [];
    entries.push(...put);
    res.end(JSON.stringify({ FailedEntryCount: 0, Entries: put.map(() => ({ EventId: randomUUID() })) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    entries,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
