import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import { row } from '../digest/digestFixtures.ts';
import { footerlessPages, readable } from './footerlessPages.ts';
import { tempDirPer } from './tempDirPer.ts';

const TOKEN = 'PLANTED-RAW-TOKEN-7f3a9c';
const tmp = tempDirPer('ta-footerless-');

/** A 3,000-row draft written under `keep` (raw tokens in it), cut as a kill leaves it: no footer, last page torn. */
async function killedDraft(): Promise<string> {
  const full = join(tmp.dir, 'full.parquet');
  const rows = Array.from({ length: 3000 }, (_, i) => ({
    ...row(i),
    token_value: i === 1234 ? TOKEN : `t-${i % 7}`,
  }));
  await writeHistoryParquet(rows, full, { rowGroupSize: 1000 });
  const bytes = await readFile(full);
  const footer = bytes.readUInt32LE(bytes.length - 8);
  const cut = bytes.subarray(0, bytes.length - 8 - footer - 5);
  const draft = join(tmp.dir, 'walk-2026-11-20-killed.parquet');
  await writeFile(draft, cut);
  return draft;
}

describe('a killed draft (no footer) as the token scan reads it', () => {
  it('control: the planted raw token IS found in the decoded pages', async () => {
    const draft = await killedDraft();
    expect(footerlessPages(new Uint8Array(await readFile(draft))).length).toBeGreaterThan(10);
    expect(await readable(draft)).toContain(TOKEN);
  });

  it('the old scan (raw bytes of the compressed file) would have missed it', async () => {
    const draft = await killedDraft();
    expect((await readFile(draft)).toString('latin1')).not.toContain(TOKEN);
  });
});
