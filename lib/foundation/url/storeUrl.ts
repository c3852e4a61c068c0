import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArchiverError } from '../errors/archiverError.ts';

/** Where the archive goes, parsed once: a local folder or an S3 bucket and key prefix. */
export type DestUrl = { kind: 'file'; dir: string } | { kind: 's3'; bucket: string; prefix: string };

/** Where the state goes: a DynamoDB table (local mode's state folder is not a URL). */
export interface StateUrl {
  kind: 'dynamodb';
  table: string;
}

const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** DynamoDB's own table-name rule. */
const TABLE_RE = /^[a-zA-Z0-9_.-]{3,255}$/;
const SCHEME_RE = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

function destInvalid(url: string, why?: string, cause?: unknown): ArchiverError {
  const reason = why === undefined ? '' : ` (${why})`;
  return new ArchiverError(
    'CONFIG_INVALID',
    `ARCHIVE_DEST must be file://DIR or s3://bucket/prefix, got '${url}'${reason}`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * Parses `ARCHIVE_DEST`: `file:///abs/dir` (a real file URL), `file://./rel` or `file://rel` (the
 * relative shorthand, resolved against `cwd`), a bare path, or `s3://bucket/prefix`. A `file://` URL
 * is percent-decoded exactly once (`my%20dir` is the folder `my dir`), a bare path never. Every
 * module that needs the folder (data, local state, `query`) gets it from here, so they agree.
 */
export function parseDestUrl(url: string, cwd: string = process.cwd()): DestUrl {
  const trimmed = url.trim();
  if (trimmed === '') throw destInvalid(url, 'empty');

  if (trimmed.startsWith('s3://')) {
    const rest = trimmed.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    const prefix = slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
    if (!BUCKET_RE.test(bucket)) throw destInvalid(url, `'${bucket}' is not a valid bucket name`);
    if (prefix.split('/').some((s) => s === '.' || s === '..') || /\/\/|\\/.test(prefix)) {
      throw destInvalid(url, `'${prefix}' is not a valid key prefix`);
    }
    return { kind: 's3', bucket, prefix };
  }

  if (trimmed.startsWith('file://')) {
    const rest = trimmed.slice('file://'.length);
    if (rest === '') throw destInvalid(url, 'no folder');
    try {
      const dir = rest.startsWith('/') ? fileURLToPath(trimmed) : decodeURIComponent(rest);
      return { kind: 'file', dir: path.resolve(cwd, dir) };
    } catch (error) {
      throw destInvalid(url, 'not a valid file URL', error);
    }
  }

  if (SCHEME_RE.test(trimmed)) throw destInvalid(url, 'unsupported scheme');
  return { kind: 'file', dir: path.resolve(cwd, trimmed) };
}

/** Parses `ARCHIVE_STATE`: `dynamodb://TABLE` (a trailing slash is tolerated). */
export function parseStateUrl(url: string): StateUrl {
  const match = /^dynamodb:\/\/([^/?#]+)\/?$/.exec(url.trim());
  const table = match?.[1];
  if (table === undefined || !TABLE_RE.test(table)) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `ARCHIVE_STATE must be dynamodb://TABLE (3-255 of a-z A-Z 0-9 _ . -), got '${url}'`,
    );
  }
  return { kind: 'dynamodb', table };
}

/** `s3://bucket/prefix` for `ARCHIVE_DEST` (the stack writes it; `parseDestUrl` reads it back). */
export function s3DestUrl(bucket: string, prefix = ''): string {
  return `s3://${bucket}/${prefix}`;
}

/** `dynamodb://table` for `ARCHIVE_STATE`. */
export function dynamoStateUrl(table: string): string {
  return `dynamodb://${table}`;
}
