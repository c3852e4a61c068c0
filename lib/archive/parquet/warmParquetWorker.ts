import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ensureRunFolder } from '../../foundation/index.ts';
import type { ArchiveRow } from '../records/archiveRow.ts';
import { HistoryParquetFile, type HistoryParquetFileOptions } from './historyParquetFile.ts';
import { parquetWorker, parquetWorkerAvailable } from './parquetWorkerClient.ts';
import { CHUNK_ROWS } from './rowChunk.ts';

/**
 * The warm-up: a few files of one chunk each (each encoded by the worker, as a walk's are; a file's rows
 * are encoded when it finishes, so a stop waits for one small file at most). Measured on a loaded 2-core
 * machine with 2,400-row files (a commit's size in the bench `bigDay`): a cold worker took 0.45–0.67 s to
 * finish its first file and 0.2–0.5 s its second; after three warm-up files (0.7 s) 0.03–0.06 s, as a warm
 * worker does.
 */
export const WARM_FILES = 3;
export const WARM_ROWS = CHUNK_ROWS;

/**
 * Starts the process's encoding worker and has it encode a few throwaway files of made-up rows (then
 * removed), so that its start-up and its first, slow encodings happen now, beside the walk's first
 * requests, instead of inside the walk's first commit: a commit's time sets what the run keeps before
 * its deadline (`DeadlineBudget.keepMs`), and a cold worker made the first commit the slowest of the run.
 * Nothing happens where there is no worker. Once `stop` is aborted (the walk's first commit began, or the
 * walk ended), no further file or row is begun, and a file not finishing yet is dropped. Never fails: a
 * worker that cannot encode fails the walk's own files, where it is reported.
 */
export async function warmParquetWorker(
  tmpDir: string,
  opts: Pick<HistoryParquetFileOptions, 'rowGroupSize' | 'compression'> = {},
  stop?: AbortSignal,
): Promise<void> {
  if (!parquetWorkerAvailable()) return;
  // Started now, before the first await: its start-up overlaps whatever the caller does next.
  parquetWorker();
  for (let n = 0; n < WARM_FILES && !stop?.aborted; n++) {
    let file: HistoryParquetFile | undefined;
    try {
      await ensureRunFolder(tmpDir);
      file = await HistoryParquetFile.create(join(tmpDir, `warm-${randomUUID()}.parquet`), {
        ...opts,
        encoder: 'worker',
      });
      for (const row of warmRows(WARM_ROWS)) {
        if (stop?.aborted) return;
        await file.add(row);
      }
      await file.finish();
    } catch {
      // See above: the walk's files report a broken worker.
      return;
    } finally {
      await file?.abort();
    }
  }
}

/** Rows shaped like a walk's (unique ids and ports, repeated users and domains, some nulls). */
function* warmRows(count: number): Generator<ArchiveRow> {
  const start = Date.UTC(2025, 0, 1);
  const archivedAt = new Date(start + 86_400_000);
  for (let i = 0; i < count; i++) {
    const id = (i * 2_654_435_761).toString(16).padStart(32, '0').slice(-32);
    const at = start + i * 1_000;
    const tcp = i % 4 === 0;
    const port = 1024 + ((i * 7_919) % 64_000);
    const ip = `198.51.${(i >>> 8) & 255}.${i & 255}`;
    yield {
      record_id: id,
      session_id: id.split('').reverse().join(''),
      start_time: new Date(at),
      end_time: i % 20 === 0 ? null : new Date(at + 60_000 + i),
      user_email: `user${i % 50}@example.com`,
      token_value: null,
      virtual_token_value: null,
      token_hmac: id + id,
      virtual_token_hmac: tcp ? id + id : null,
      domains: tcp ? [] : [`t${i % 300}.example`, 'example.com'],
      mode: tcp ? 'tcp' : 'http',
      mode_udp: '',
      client_ip: `[${ip}]:${port}`,
      client_address: ip,
      client_port: port,
      port: tcp ? 10_000 + (i % 1000) : null,
      extra_json: i % 10 === 0 ? `{"region":"r${i % 3}"}` : null,
      archived_at: archivedAt,
      start_time_text: null,
      end_time_text: null,
    };
  }
}
