/**
 * Worker of `leanFloorChild.ts`. Each page's bytes arrive here, moved from the fetching thread, and this thread
 * does, by `stage`:
 * - `parse`: the body decoded and `JSON.parse`d, nothing else;
 * - `check`: and every record checked (`judgeHistoryContent`) and keyed (`keyRecord`: instants, token HMACs,
 *   `record_id`), with the archive's own code;
 * - `row`: and each record's draft row built and collected in chunks (`RowChunkBuilder`), then dropped;
 * - `archive`: and each record's draft row built, collected in chunks (`RowChunkBuilder`) and encoded by the
 *   archive's own writer (`ParquetDraftWriter`, its row-group settings, GZIP) into one file of this thread's.
 * Never a dedupe, a state file, a digest or a commit: what is left of a run once its walk costs nothing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  DEFAULT_ROW_GROUP_BYTES,
  DEFAULT_ROW_GROUP_SIZE,
} from '../../lib/archive/parquet/historyParquetFile.ts';
import { ParquetDraftWriter } from '../../lib/archive/parquet/parquetDraftWriter.ts';
import { CHUNK_ROWS, RowChunkBuilder } from '../../lib/archive/parquet/rowChunk.ts';
import { judgeHistoryContent } from '../../lib/archive/records/judgeHistoryContent.ts';
import { keyRecord } from '../../lib/archive/records/keyedRecord.ts';

export type LeanStage = 'parse' | 'check' | 'row' | 'archive';

const { out, tokenKey, stage } = workerData as { out: string; tokenKey: Uint8Array; stage: LeanStage };
const now = new Date();
const opts = { tokenPolicy: 'hash' as const, tokenKey, archivedAt: now };
const builder = new RowChunkBuilder();
const draft =
  stage === 'archive'
    ? ParquetDraftWriter.create(out, {
        rowGroupSize: DEFAULT_ROW_GROUP_SIZE,
        rowGroupBytes: DEFAULT_ROW_GROUP_BYTES,
        compression: 'GZIP',
      })
    : undefined;
/** The writer's work, strictly in order, as the encoding worker does it. */
let chain: Promise<unknown> = Promise.resolve();
let records = 0;

function page(items: unknown[]): void {
  if (stage === 'parse') {
    records += items.length;
    return;
  }
  for (const record of judgeHistoryContent(items, now).content) {
    const keyed = keyRecord(record, opts);
    if (!keyed.ok) continue;
    records++;
    if (stage === 'check') continue;
    builder.push(keyed.keyed.draftRow());
    if (builder.rows === CHUNK_ROWS) {
      const chunk = builder.take();
      if (draft) chain = chain.then(async () => (await draft).append(chunk));
    }
  }
}

async function end(): Promise<{ records: number; bytes: number }> {
  if (!draft) return { records, bytes: 0 };
  const chunk = builder.take();
  await chain;
  const writer = await draft;
  if (chunk.rows > 0) await writer.append(chunk);
  return { records, bytes: (await writer.finish()).bytes };
}

parentPort?.on('message', (message: ArrayBuffer | 'end') => {
  if (message === 'end') {
    void end().then((result) => parentPort?.postMessage(result));
    return;
  }
  page((JSON.parse(Buffer.from(message).toString('utf8')) as { content: unknown[] }).content);
});
