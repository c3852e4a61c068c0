import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AthenaStubHandle {
  /** For `AWS_ENDPOINT_URL_ATHENA`. */
  endpoint: string;
  /** Queries started: their text, workgroup and database. */
  queries: { sql: string; workGroup: string; database: string }[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/**
 * The three Athena calls the detect function makes (`StartQueryExecution`, `GetQueryExecution`,
 * `GetQueryResults`, AWS JSON 1.1), on 127.0.0.1 port 0. Each query succeeds at once with the rows
 * `answer` gives (or resolves to) for its text (a header row of its columns first, every value as text, as Athena sends).
 */
export async function startAthenaStub(
  answer: (sql: string) => Record<string, string | null>[] | Promise<Record<string, string | null>[]>,
): Promise<AthenaStubHandle> {
  const queries: AthenaStubHandle['queries'] = [];
  const results = new Map<string, Record<string, string | null>[]>();
  const server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonAthena\./, '');
    const body = await readJson(req);
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    };
    const id = String(body.QueryExecutionId ?? '');
    if (target === 'StartQueryExecution') {
      const sql = String(body.QueryString);
      const database = String((body.QueryExecutionContext as { Database?: string } | undefined)?.Database);
      queries.push({ sql, workGroup: String(body.WorkGroup), database });
      const started = randomUUID();
      results.set(started, await answer(sql));
      reply(200, { QueryExecutionId: started });
    } else if (target === 'GetQueryExecution' && results.has(id)) {
      reply(200, { QueryExecution: { QueryExecutionId: id, Status: { State: 'SUCCEEDED' } } });
    } else if (target === 'GetQueryResults' && results.has(id)) {
      const rows = results.get(id) ?? [];
      const columns = Object.keys(rows[0] ?? {});
      const row = (values: (string | null)[]) => ({
        Data: values.map((v) => (v === null ? {} : { VarCharValue: v })),
      });
      reply(200, {
        ResultSet: { Rows: [row(columns), ...rows.map((r) => row(columns.map((c) => r[c] ?? null)))] },
      });
    } else {
      reply(400, { __type: 'InvalidRequestException', message: `stub does not implement ${target} ${id}` });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    queries,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
