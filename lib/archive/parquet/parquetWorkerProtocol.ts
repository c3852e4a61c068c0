import type { ArchiverErrorCode } from '../../foundation/index.ts';
import type { DraftWriterSettings } from './parquetDraftWriter.ts';
import type { RowChunk } from './rowChunk.ts';

/** A request to the Parquet encoding worker: `file` names the draft, `req` pairs it with its reply. */
export type WorkerRequest =
  | { req: number; file: number; op: 'create'; path: string; settings: DraftWriterSettings }
  | { req: number; file: number; op: 'append'; chunk: RowChunk }
  | { req: number; file: number; op: 'finish' }
  | { req: number; file: number; op: 'abort' };

/** A finished file: its rows and size in bytes. */
export interface FileResult {
  rows: number;
  bytes: number;
}

/** The worker's answer to request `req`: the finished file's size, or the error, by code. */
export type WorkerReply =
  | { req: number; ok: true; result?: FileResult }
  | { req: number; ok: false; code: ArchiverErrorCode; message: string };

/** A request without its pairing number (the client adds it). */
export type WorkerCall = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'req'> : never) : never;
