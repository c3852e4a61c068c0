import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { parquetMetadata } from 'hyparquet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FINDINGS_COLUMNS, findingsWriter } from '../../lib/analytics/detect/findingsDataset.ts';
import { activeParquetBytes } from '../../lib/archive/active/activeParquet.ts';
import { ACTIVE_COLUMNS } from '../../lib/archive/active/activeSchema.ts';
import { normaliseRecord, recordIdOf, sessionIdOf } from '../../lib/archive/records/recordId.ts';
import type { HistoryRecord } from '../../lib/archive/records/schemas.ts';
import { recordIdFields } from '../records/historyRecords.ts';
import { tableRowsFrom } from './markdownTable.ts';

const CONTRACT = await readFile(new URL('../../docs/data-contract.md', import.meta.url), 'utf8');

/** The rows of the first table after `marker`, as cells (header and separator dropped). */
function tableAfter(marker: string): string[][] {
  const at = CONTRACT.indexOf(marker);
  if (at < 0) throw new Error(`docs/data-contract.md has no '${marker}'`);
  return tableRowsFrom(CONTRACT, at);
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

/** The id recipe as the page states it: prefix line and keys of each id. */
function recipe(id: 'record_id' | 'session_id'): { prefix: string; keys: string[] } {
  const row = tableAfter('**Ids.**').find((r) => ticked(r[0] ?? '')[0] === id);
  if (!row) throw new Error(`docs/data-contract.md states no recipe for ${id}`);
  return { prefix: ticked(row[1] ?? '')[0] ?? '', keys: ticked(row[2] ?? '') };
}

/** The id by the page's recipe: SHA-256 of the prefix, a newline and the JSON of the stated keys, sorted. */
function idByRecipe(id: 'record_id' | 'session_id', fields: Record<string, unknown>): string {
  const { prefix, keys } = recipe(id);
  const json = JSON.stringify(Object.fromEntries([...keys].sort().map((k) => [k, fields[k]])));
  return createHash('sha256').update(`${prefix}\n${json}`, 'utf8').digest('hex').slice(0, 32);
}

const KEY = new Uint8Array(32).fill(7);

const record = fc.record({
  start_time: fc
    .integer({ min: 946_684_800_000, max: 1_900_000_000_000 })
    .map((t) => new Date(t).toISOString()),
  end_time: fc.option(
    fc.integer({ min: 946_684_800_000, max: 1_900_000_000_000 }).map((t) => new Date(t).toISOString()),
  ),
  user_email: fc.string(),
  token_value: fc.option(fc.string()),
  virtual_token_value: fc.option(fc.string()),
  domains: fc.array(fc.string(), { maxLength: 4 }),
  mode: fc.string(),
  mode_udp: fc.string(),
  client_ip: fc.string(),
  port: fc.option(fc.integer({ min: 0, max: 65_535 })),
}) as fc.Arbitrary<HistoryRecord>;

describe('docs/data-contract.md', () => {
  it('states the id recipe so that anyone recomputes record_id and session_id', () => {
    expect(recipe('record_id').prefix).toBe('tunnel-archiver/record/v2');
    fc.assert(
      fc.property(record, (r) => {
        const n = normaliseRecord(r, KEY);
        const fields = recordIdFields(n);
        expect(idByRecipe('record_id', fields)).toBe(recordIdOf(n));
        expect(idByRecipe('session_id', fields)).toBe(sessionIdOf(n));
      }),
      { numRuns: 200 },
    );
  });

  it("gives a worked example whose shell line prints the archive's id", () => {
    const example = /```sh\n(printf 'tunnel-archiver\/record\/v2[^\n]+)\n# ([0-9a-f]{32})\n```/.exec(
      CONTRACT,
    );
    expect(example, 'the example and the id it prints').not.toBeNull();
    const [, line = '', printed = ''] = example ?? [];
    expect(execFileSync('bash', ['-c', line], { encoding: 'utf8' }).trim()).toBe(printed);
    const json = JSON.parse(/'(\{.*\})'/.exec(line)?.[1] ?? '{}') as Record<string, unknown>;
    const r = {
      ...json,
      start_time: new Date(json.start_time as number).toISOString(),
      end_time: json.end_time === null ? null : new Date(json.end_time as number).toISOString(),
      token_value: null,
      virtual_token_value: null,
    } as unknown as HistoryRecord;
    expect(recordIdOf(normaliseRecord(r, KEY))).toBe(printed);
  });

  describe('columns, read from files the writers make', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'ta-data-contract-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    const optional = (bytes: Uint8Array) => {
      const meta = parquetMetadata(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      );
      return new Map(
        meta.schema.slice(1).map((e) => [e.name, e.repetition_type === 'OPTIONAL' ? 'yes' : 'no']),
      );
    };
    const documented = (marker: string) =>
      tableAfter(marker).map(([column = '', type = '', nullable = '']) => [
        ticked(column)[0],
        type,
        nullable,
      ]);

    it('lists the active/ columns in file order with their types and nullability', async () => {
      const nullable = optional(await activeParquetBytes([]));
      expect(documented('Columns of `active/` files')).toEqual(
        ACTIVE_COLUMNS.map((c) => [c.name, c.athenaType, nullable.get(c.name)]),
      );
    });

    it('lists the findings/ columns in file order with their types and nullability', async () => {
      const file = path.join(dir, 'findings.parquet');
      await findingsWriter.write((async function* () {})(), file);
      const nullable = optional(new Uint8Array(await readFile(file)));
      expect(documented('## Findings')).toEqual(
        FINDINGS_COLUMNS.map((c) => [c.name, c.athenaType, nullable.get(c.name)]),
      );
    });
  });
});
