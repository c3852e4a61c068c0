import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HISTORY_PATH } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import type { Day } from '../../lib/foundation/clock/day.ts';

/** A body the server sends instead of a page: chunks made as they are sent, and the length it declares. */
export interface GeneratedBody {
  chunks: () => Iterator<Buffer>;
  /** Sent as Content-Length when given (else the body is chunked). */
  declaredBytes?: number;
}

/** An item sent as this JSON text, verbatim (one too deep for `JSON.stringify` to write). */
export class JsonText {
  constructor(readonly text: string) {}
}

export interface PagedHistoryServer {
  url: string;
  /** Bytes written to sockets for generated bodies so far (what the client made the server send). */
  generatedBytesSent(): number;
  close(): Promise<void>;
}

/**
 * The history endpoint over real HTTP on 127.0.0.1:0: each day's items in a fixed order, paged as the
 * API pages them (Spring's envelope, the size asked for; a `JsonText` item sent verbatim), and, for the pages `override` names, a generated
 * body instead (a body far larger than any page, made chunk by chunk so the test never holds it).
 *
 * Why not the emulator (lib/archive/emulator): these tests need exactly these items for exactly this day and one
 * chosen page replaced by a hostile body; the emulator serves a generated dataset whose faults are rates.
 */
export async function startPagedHistoryServer(
  days: ReadonlyMap<Day, readonly unknown[]>,
  override: (day: Day, page: number) => GeneratedBody | undefined = () => undefined,
): Promise<PagedHistoryServer> {
  let generated = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = new RegExp(`^${HISTORY_PATH}/(\\d{4}-\\d{2}-\\d{2})/(\\d{4}-\\d{2}-\\d{2})$`).exec(
      url.pathname,
    );
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const day = match[1] as Day;
    const page = Number(url.searchParams.get('page') ?? 0);
    const size = Number(url.searchParams.get('size') ?? 20);
    const replaced = override(day, page);
    if (replaced) {
      sendGenerated(res, replaced, (n) => {
        generated += n;
      });
      return;
    }
    const all = days.get(day) ?? [];
    const content = all.slice(page * size, (page + 1) * size);
    const totalPages = Math.ceil(all.length / size);
    const sort = { empty: true, sorted: false, unsorted: true };
    const items = content.map((item) => (item instanceof JsonText ? item.text : JSON.stringify(item)));
    const body = JSON.stringify({
      totalElements: all.length,
      totalPages,
      size,
      content: [],
      number: page,
      sort,
      pageable: { pageNumber: page, pageSize: size, sort, offset: page * size, paged: true, unpaged: false },
      numberOfElements: content.length,
      first: page === 0,
      last: page >= totalPages - 1,
      empty: content.length === 0,
    }).replace('"content":[]', `"content":[${items.join(',')}]`);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    generatedBytesSent: () => generated,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Writes a generated body as the socket drains, until it ends or the client goes away. */
function sendGenerated(res: ServerResponse, body: GeneratedBody, sent: (bytes: number) => void): void {
  res.writeHead(200, {
    'content-type': 'application/json',
    ...(body.declaredBytes === undefined ? {} : { 'content-length': body.declaredBytes }),
  });
  const chunks = body.chunks();
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  const pump = (): void => {
    while (!gone) {
      const next = chunks.next();
      if (next.done) {
        res.end();
        return;
      }
      sent(next.value.length);
      if (!res.write(next.value)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  pump();
}
