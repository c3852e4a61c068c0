/**
 * Entry of the Parquet encoding worker thread (started by `parquetWorkerClient.ts`): owns the draft
 * writers of the files handed to it and encodes their row groups off the main thread, which meanwhile
 * fetches, validates and hashes the next pages. Requests of one file are handled strictly in order.
 */
import { parentPort } from 'node:worker_threads';
import {
  ArchiverError,
  boundHeapGrowth,
  relieveHeap,
  TWO_HEAPS_GROWING_PERCENT,
} from '../../foundation/index.ts';
import { ParquetDraftWriter } from './parquetDraftWriter.ts';
import type { FileResult, WorkerReply, WorkerRequest } from './parquetWorkerProtocol.ts';

const port = parentPort;
if (!port) throw new Error('parquetWorker.ts runs only as a worker thread');

// The flag is process-wide and this thread's module state starts empty: take the bound the main thread
// set when it started this worker, so this thread's own `relieveHeap` calls never loosen it.
boundHeapGrowth(TWO_HEAPS_GROWING_PERCENT);

const writers = new Map<number, Promise<ParquetDraftWriter>>();
const chains = new Map<number, Promise<void>>();

port.on('message', (request: WorkerRequest) => {
  const previous = chains.get(request.file) ?? Promise.resolve();
  const next = previous
    .then(() => handle(request))
    .then(
      (result) => reply({ req: request.req, ok: true, ...(result === undefined ? {} : { result }) }),
      (error: unknown) => reply(failure(request.req, error)),
    );
  if (request.op === 'finish' || request.op === 'abort') {
    chains.delete(request.file);
    void next.then(() => writers.delete(request.file));
  } else {
    chains.set(request.file, next);
  }
});

async function handle(request: WorkerRequest): Promise<FileResult | undefined> {
  switch (request.op) {
    case 'create': {
      // Nothing else runs on this thread: a row group is encoded in one stretch (see `DraftWriterOptions`).
      const writer = ParquetDraftWriter.create(request.path, request.settings, {
        yieldBetweenColumns: false,
      });
      writers.set(request.file, writer);
      await writer;
      return undefined;
    }
    case 'append': {
      const writer = await writerOf(request.file);
      const flushed = writer.append(request.chunk);
      if (flushed) {
        await flushed;
        // This thread's garbage (row groups encoded) is collected here, never on the main thread.
        relieveHeap();
      }
      return undefined;
    }
    case 'finish':
      return (await writerOf(request.file)).finish();
    case 'abort': {
      const writer = writers.get(request.file);
      if (writer) await (await writer.catch(() => undefined))?.abort();
      return undefined;
    }
  }
}

function writerOf(file: number): Promise<ParquetDraftWriter> {
  const writer = writers.get(file);
  if (!writer) throw new ArchiverError('INTERNAL', `parquet worker: no file ${file}`);
  return writer;
}

function reply(message: WorkerReply): void {
  port?.postMessage(message);
}

function failure(req: number, error: unknown): WorkerReply {
  return {
    req,
    ok: false,
    code: ArchiverError.is(error) ? error.code : 'STORE_FAILED',
    message: error instanceof Error ? error.message : String(error),
  };
}
