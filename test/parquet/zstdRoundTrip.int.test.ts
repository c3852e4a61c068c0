import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_NODE, RUN_TS } from '../../devkit/lambdaNode.ts';
import { DEFAULT_PARQUET_COMPRESSION } from '../../lib/archive/parquet/parquetCompression.ts';
import { readHistoryRows } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import { edgeCaseRows } from './historyRows.ts';
import { readWithArrowRs } from './readWithArrowRs.ts';

const DESIGN = new URL('../../docs/design.md', import.meta.url);

/** Every codec named in a file's column chunks (one per chunk, deduplicated). */
function codecsOf(bytes: Uint8Array): string[] {
  const meta = parquetMetadata(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  );
  return [...new Set(meta.row_groups.flatMap((g) => g.columns.map((c) => String(c.meta_data?.codec))))];
}

/**
 * The claim of docs/design.md, from the "Codec written" table of its section on the files it writes: which codec a runtime
 * whose Node major is `major` writes. Rows name a runtime ("Node 20 …", "Node ≥ 22.15 …") and a codec.
 */
async function readmeCodecFor(node: string): Promise<string> {
  const text = await readFile(DESIGN, 'utf8');
  const section = text.slice(text.indexOf('## How a day is archived'));
  const rows = section
    .split('\n')
    .filter((l) => /^\|\s*Node/.test(l))
    .map((l) => l.split('|').map((c) => c.trim()));
  const [major = 0, minor = 0] = node.split('.').map(Number);
  for (const [, runtime = '', codec = ''] of rows) {
    const at = /Node\s*(≥|>=)?\s*(\d+)(?:\.(\d+))?/.exec(runtime);
    if (!at) continue;
    const [wantMajor, wantMinor] = [Number(at[2]), Number(at[3] ?? 0)];
    const matches = at[1]
      ? major > wantMajor || (major === wantMajor && minor >= wantMinor)
      : major === wantMajor;
    if (matches) return codec.replace(/`/g, '');
  }
  throw new Error(`docs/design.md names no codec for Node ${node}`);
}

let dir: string;
let db: DuckDBInstance;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zstd-round-trip-'));
  db = await DuckDBInstance.create();
});

afterAll(async () => {
  db.closeSync();
  await rm(dir, { recursive: true, force: true });
});

async function readWithDuckDb(path: string): Promise<Record<string, unknown>[]> {
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)).getRowObjectsJS();
  } finally {
    conn.closeSync();
  }
}

const byId = (a: { record_id?: unknown }, b: { record_id?: unknown }): number =>
  String(a.record_id).localeCompare(String(b.record_id));

describe('the default Parquet codec', () => {
  it('is ZSTD under the Lambda Node (24), and DuckDB, hyparquet and arrow-rs read the file back exactly', async () => {
    expect(existsSync(LAMBDA_NODE), `${LAMBDA_NODE} is missing: npm ci installs it (postinstall)`).toBe(true);
    const path = join(dir, 'lambda-node.parquet');
    const { stdout } = await promisify(execFile)(
      LAMBDA_NODE,
      [RUN_TS, 'test/parquet/writeDefaultCodecChild.ts', path],
      {
        env: { PATH: process.env.PATH ?? '' },
        timeout: 60_000,
      },
    );
    const child = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      node: string;
      compression: string;
      idsRead: string[];
    };
    expect(child.node.split('.')[0]).toBe('24');
    expect(child.compression).toBe('ZSTD');

    const bytes = new Uint8Array(await readFile(path));
    expect(codecsOf(bytes)).toEqual(['ZSTD']);
    expect(codecsOf(bytes)).toEqual([await readmeCodecFor(child.node)]);

    const rows = edgeCaseRows();
    expect(await readHistoryRows(bytes)).toEqual(rows);
    // The committer's read of the ids, with Node 24's native ZSTD, gave every id of the file.
    expect(child.idsRead).toEqual(rows.map((r) => r.record_id).sort());
    expect(await readWithArrowRs(bytes)).toEqual(rows);
    expect((await readWithDuckDb(path)).sort(byId)).toEqual([...rows].sort(byId));
  });

  it('is what docs/design.md says for the Node running the tests, read from the file footer', async () => {
    const path = join(dir, 'test-node.parquet');
    await writeHistoryParquet(edgeCaseRows(), path);
    const bytes = new Uint8Array(await readFile(path));
    expect(codecsOf(bytes)).toEqual([DEFAULT_PARQUET_COMPRESSION]);
    expect(codecsOf(bytes)).toEqual([await readmeCodecFor(process.versions.node)]);
    expect(await readWithArrowRs(bytes)).toEqual(edgeCaseRows());
  });
});
