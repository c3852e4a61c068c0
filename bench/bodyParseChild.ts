/**
 * The child of `bodyParseMemory.ts`: `bodyParseChild.ts <shape> <bytes> [pages]` serves history page bodies
 * of `bytes` bytes of the given shape from a local server (generated chunk by chunk, never held whole),
 * asks for `pages` of them at once (default 1) through the real client (read, parsed, every item judged)
 * and prints one JSON line: its peak RSS, its RSS before the requests, and what the pages held. The pages
 * are kept alive until measured, as a walk holds the pages waiting for its sink.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BodyShape, bodyChunks } from '../devkit/bodyShapes.ts';
import { createTunnelApiClient } from '../lib/archive/upstream/createTunnelApiClient.ts';

const shape = process.argv[2] as BodyShape;
const bytes = Number(process.argv[3]);
const count = Number(process.argv[4] ?? 1);

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes });
  const chunks = bodyChunks(shape, bytes);
  const pump = (): void => {
    for (;;) {
      const next = chunks.next();
      if (next.done) {
        res.end();
        return;
      }
      if (!res.write(next.value)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  pump();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const client = createTunnelApiClient({
  baseUrl: `http://127.0.0.1:${port}`,
  apiKey: 'bench-key',
  maxBodyBytes: bytes,
  retry: { maxAttempts: 1 },
});
(globalThis as { gc?: () => void }).gc?.();
const baseline = process.memoryUsage().rss;
const started = performance.now();
const pages = await Promise.all(
  Array.from({ length: count }, (_, n) =>
    client.historyPage('2026-01-01', '2026-01-01', n, 2000).catch((error: { code?: string }) => error),
  ),
);
const page = pages[0] as (typeof pages)[number];
const refused = 'content' in page ? undefined : page.code;
const seconds = (performance.now() - started) / 1000;
const mib = (b: number) => Math.round((b / 1_048_576) * 10) / 10;
const held = pages;
process.stdout.write(
  `${JSON.stringify({
    shape,
    bodyMiB: mib(bytes),
    pages: count,
    peakRssMiB: mib(process.resourceUsage().maxRSS * 1024),
    baselineRssMiB: mib(baseline),
    ...('content' in page
      ? { valid: page.content.length, rejected: page.rejected.length }
      : { refused: refused ?? 'error' }),
    heapUsedMiB: mib(process.memoryUsage().heapUsed),
    seconds: Math.round(seconds * 100) / 100,
  })}\n`,
);
void held;
await client.close();
server.close();
