import { createHash } from 'node:crypto';
import { activeParquetBytes } from '../lib/archive/active/activeParquet.ts';
import type { ActiveRow } from '../lib/archive/active/activeRow.ts';
import { archiveKeys } from '../lib/archive/commit/archiveKeys.ts';
import { windowStartOf } from '../lib/archive/days/planDays.ts';
import { describeDataFile } from '../lib/archive/digest/describeDataFile.ts';
import { digestKeys } from '../lib/archive/digest/digestKeys.ts';
import {
  DIGEST_FORMAT_VERSION,
  type DigestBody,
  type DigestFile,
  signedBytes,
} from '../lib/archive/digest/digestSchema.ts';
import type { DigestSigner } from '../lib/archive/digest/digestSigner.ts';
import { runArchive } from '../lib/archive/run/runArchive.ts';
import type { ArchiveDeps, ArchiveOptions } from '../lib/archive/run/runTypes.ts';
import type { ManifestFile } from '../lib/archive/state/partitionManifest.ts';
import type { StateStore } from '../lib/archive/state/statePorts.ts';
import { updateMeta } from '../lib/archive/state/updateMeta.ts';
import type { ObjectStore } from '../lib/archive/store/objectStore.ts';
import type { Clock, ManualClock } from '../lib/foundation/clock/clock.ts';
import { addDays, type Day, dayRange, toDay } from '../lib/foundation/clock/day.ts';
import { mapLimit } from '../lib/foundation/concurrency/mapLimit.ts';

/**
 * An archive `ageDays` old as the stack would leave it: a real run fills the window (at the clock's day),
 * `ageArchive` generates the older days, and one more run (the next day) settles on it. The clock is left
 * on that next day.
 */
export async function agedArchive(
  deps: ArchiveDeps,
  clock: ManualClock,
  options: ArchiveOptions,
  ageDays: number,
): Promise<{ days: number; files: number; digests: number }> {
  await runArchive(deps, options);
  const generated = await ageArchive({
    objects: deps.objects,
    state: deps.state,
    signer: deps.signer,
    clock,
    windowStart: windowStartOf(toDay(clock.now()), options.windowDays),
    ageDays,
    activeFilesPerDay: 24,
  });
  clock.advance(86_400_000);
  await runArchive(deps, options);
  return generated;
}

export interface AgeOptions {
  objects: ObjectStore;
  state: StateStore;
  signer: DigestSigner;
  clock: Clock;
  /** The archive's first day in the window now: older days are generated back to `today - ageDays`. */
  windowStart: Day;
  ageDays: number;
  /** Files per day under `active/` (the stack leaves about 24: one an hour). */
  activeFilesPerDay: number;
  /** Parallel writes (default 16). */
  concurrency?: number;
}

/**
 * Makes an archive that a real run started look `ageDays` old, as the stack would have left it, without
 * running a run per day: for every older day, a history file (a copy of the archive's first one: ids are
 * checked per partition, so verify still passes), `activeFilesPerDay` active files, their manifests, a
 * sealed day, and one signed digest per day appended to the chain; then META's head, first window and
 * last reconciliation are moved to match. Returns how many files and digests it wrote.
 */
export async function ageArchive(o: AgeOptions): Promise<{ days: number; files: number; digests: number }> {
  const oldest = addDays(o.windowStart, -(o.ageDays - 60));
  if (o.ageDays <= 60) return { days: 0, files: 0, digests: 0 };
  const days = dayRange(oldest, addDays(o.windowStart, -1));
  const history = await historyTemplate(o);
  const active = await activeParquetBytes([activeTemplateRow()]);
  const meta = await o.state.getMeta();
  const head = meta?.chainHead;
  if (!head) throw new Error('ageArchive needs an archive a run has written (META with a chain head)');
  let previous = { seq: head.seq, key: head.key, sha256: head.sha256 };
  let files = 0;
  for (const day of days) {
    const at = (h: number) => new Date(Date.parse(`${day}T00:30:00Z`) + h * 3_600_000);
    const written: {
      key: string;
      bytes: Uint8Array;
      dataset: 'history' | 'active';
      at: Date;
      rows: number;
    }[] = [
      {
        key: archiveKeys.dataOf('history', day, fileName(at(23), 1)),
        bytes: history.bytes,
        dataset: 'history',
        at: at(23),
        rows: history.rows,
      },
      ...Array.from({ length: o.activeFilesPerDay }, (_, h) => ({
        key: archiveKeys.dataOf('active', day, fileName(at(h), h + 1)),
        bytes: active,
        dataset: 'active' as const,
        at: at(h),
        rows: 1,
      })),
    ];
    await mapLimit(written, o.concurrency ?? 16, (f) => o.objects.put(f.key, f.bytes));
    files += written.length;
    for (const dataset of ['history', 'active'] as const) {
      const mine = written.filter((f) => f.dataset === dataset);
      const manifestFiles: ManifestFile[] = mine.map((f) => ({
        name: f.key.slice(f.key.lastIndexOf('/') + 1),
        stagingKey: `_staging/gen/${dataset}/dt=${day}/${f.key.slice(f.key.lastIndexOf('/') + 1)}`,
        rows: f.rows,
        bytes: f.bytes.byteLength,
        runId: 'gen',
        fence: 0,
        committedAt: f.at.toISOString(),
        published: true,
      }));
      await o.state.putPartition({
        dt: day,
        ...(dataset === 'active' ? { dataset } : {}),
        files: manifestFiles,
        version: 0,
      });
    }
    await o.state.putDay({
      day,
      scannedAges: [0, 1, 2, 3, 7, 14, 30, 45, 58, 59],
      lastScannedAt: at(23).toISOString(),
      complete: true,
      sealed: true,
      sealedAt: addDays(day, 59),
      version: 0,
    });
    const digestFiles: DigestFile[] = written.map((f) => ({
      ...(f.dataset === 'history' ? history.file : activeFile(active)),
      key: f.key,
      dt: day,
    }));
    previous = await appendGenerated(o, previous, day, digestFiles);
  }
  await updateMeta(o.state, (m) => ({
    ...m,
    firstWindowStart: oldest,
    chainHead: { ...previous, at: o.clock.now().toISOString() },
    reconciledAt: o.clock.now().toISOString(),
    reconciledHead: { ...previous, at: o.clock.now().toISOString() },
  }));
  return { days: days.length, files, digests: days.length };
}

const fileName = (at: Date, n: number) =>
  `${archiveKeys.stamp(at)}-gen-${String(n).padStart(4, '0')}.parquet`;

async function historyTemplate(
  o: AgeOptions,
): Promise<{ bytes: Uint8Array; rows: number; file: DigestFile }> {
  for (const m of await o.state.listPartitions()) {
    const f = m.files[0];
    if ((m.dataset ?? 'history') !== 'history' || !f) continue;
    const key = archiveKeys.dataOf('history', m.dt, f.name);
    const bytes = await o.objects.get(key);
    if (bytes) return { bytes, rows: f.rows, file: await describeDataFile(key, bytes) };
  }
  throw new Error('ageArchive needs a history file to copy');
}

let activeDescribed: DigestFile | undefined;
function activeFile(bytes: Uint8Array): DigestFile {
  activeDescribed ??= {
    key: '',
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.byteLength,
    rows: 1,
    dataset: 'active',
    dt: null,
    min: '2024-01-01T00:00:00.000Z',
    max: '2024-01-01T00:00:00.000Z',
  };
  return activeDescribed;
}

function activeTemplateRow(): ActiveRow {
  const t = new Date('2024-01-01T00:00:00.000Z');
  return {
    row_id: '0123456789abcdef0123456789abcdef',
    observed_at: t,
    event: 'seen',
    id: 'gen',
    user_id: 1,
    token_id: 1,
    token: null,
    token_hmac: null,
    token_name: null,
    virtual_token: null,
    virtual_token_hmac: null,
    virtual_token_name: null,
    subdomain: 'gen.a.pinggy.link',
    customdomain: null,
    mode: 'tcp',
    mode_udp: '',
    port: 1,
    creation_time: t,
    last_update_time: t,
    extra_json: null,
    join_token_hmac: null,
  };
}

async function appendGenerated(
  o: AgeOptions,
  previous: { seq: number; key: string; sha256: string },
  day: Day,
  files: DigestFile[],
): Promise<{ seq: number; key: string; sha256: string }> {
  const seq = previous.seq + 1;
  const createdAt = `${day}T23:59:00.000Z`;
  const body: DigestBody = {
    format: DIGEST_FORMAT_VERSION,
    seq,
    runId: 'gen',
    createdAt,
    keyId: o.signer.keyId,
    algorithm: o.signer.algorithm,
    previous: { key: previous.key, sha256: previous.sha256 },
    scans: [{ day, scannedAt: createdAt, complete: true }],
    files,
  };
  const signature = Buffer.from(await o.signer.sign(signedBytes(body))).toString('base64');
  const text = `${JSON.stringify({ ...body, signature }, null, 1)}\n`;
  const key = digestKeys.digest(seq);
  if (!(await o.objects.putIfAbsent(key, text))) throw new Error(`${key} exists`);
  return { seq, key, sha256: createHash('sha256').update(text, 'utf8').digest('hex') };
}
