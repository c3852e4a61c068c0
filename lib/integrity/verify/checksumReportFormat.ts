import * as z from 'zod';
import { ArchiverError } from '../../foundation/index.ts';
import type { ChecksumRow } from './checksumJobs.ts';

/**
 * S3 Batch Operations' completion report, as AWS writes it (`Report_CSV_20180820`): a `manifest.json` that
 * names the result files, and CSV files with `Bucket, Key, VersionId, TaskStatus, ErrorCode,
 * HTTPStatusCode, ResultMessage` a row; keys are URL-encoded, and a Compute checksum task's ResultMessage is
 * JSON with `checksum_hex` (and `checksum_base64`, `checksumAlgorithm`, `checksumType`). The adapter and
 * the local stand-in (devkit/checksumJobsStandIn.ts) both read this one format.
 */
export const REPORT_FORMAT = 'Report_CSV_20180820';

export const reportManifestSchema = z.object({
  Format: z.literal(REPORT_FORMAT),
  Results: z.array(z.object({ TaskExecutionStatus: z.string(), Bucket: z.string(), Key: z.string() })),
});
export type ReportManifest = z.infer<typeof reportManifestSchema>;

const resultMessageSchema = z.object({
  checksum_hex: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .optional(),
  checksum_base64: z.string().optional(),
  checksumAlgorithm: z.string().optional(),
});

export function parseReportManifest(bytes: Uint8Array): ReportManifest {
  const parsed = reportManifestSchema.safeParse(safeJson(new TextDecoder().decode(bytes)));
  if (!parsed.success) {
    throw new ArchiverError(
      'STORE_FAILED',
      'a checksum job report manifest is not in S3 Batch Operations format',
      {
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}

/** The rows of one result CSV file. */
export function* parseReportCsv(text: string): Generator<ChecksumRow> {
  for (const fields of csvRows(text)) {
    if (fields.length < 7) continue;
    const [, rawKey = '', , status = '', errorCode = '', httpStatus = '', message = ''] = fields;
    const key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
    if (status.toLowerCase() !== 'succeeded') {
      yield { key, error: [errorCode, httpStatus, message].filter((s) => s !== '').join(' ') || status };
      continue;
    }
    const result = resultMessageSchema.safeParse(safeJson(message));
    const hex =
      (result.success && result.data.checksumAlgorithm === 'SHA256' && result.data.checksum_hex) ||
      (result.success && result.data.checksum_base64
        ? Buffer.from(result.data.checksum_base64, 'base64').toString('hex')
        : undefined);
    yield hex && hex.length === 64
      ? { key, sha256: hex.toLowerCase() }
      : { key, error: `no SHA-256 in "${message}"` };
  }
}

/** RFC 4180 rows: quoted fields may hold commas, quotes (doubled) and line breaks. */
function* csvRows(text: string): Generator<string[]> {
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      yield fields;
      fields = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    yield fields;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
