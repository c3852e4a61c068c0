import { createHash } from 'node:crypto';
import { ArchiverError, type Clock, type Logger } from '../../foundation/index.ts';
import { dataKeyInfo } from '../commit/archiveKeys.ts';
import { ManifestMembership } from '../commit/manifestMembership.ts';
import { ORPHAN_AGE_MS } from '../commit/sweepStaging.ts';
import type { StateStore } from '../state/statePorts.ts';
import { objectSource } from '../store/byteSource.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { describeDataFile, sha256OfBytes } from './describeDataFile.ts';
import { digestKeys } from './digestKeys.ts';
import {
  DIGEST_FORMAT_VERSION,
  type Digest,
  type DigestBody,
  type DigestFile,
  type DigestScan,
  digestSchema,
  signedBytes,
} from './digestSchema.ts';
import type { DigestSigner } from './digestSigner.ts';
import type { ChainHead, PendingDigestFile } from './digestState.ts';
import { readDigestChain } from './readDigestChain.ts';

export interface AppendDigestDeps {
  objects: ObjectStore;
  signer: DigestSigner;
  clock: Clock;
  logger: Logger;
  /**
   * The state, to digest only files the archiver committed: a file its partition's existing manifest
   * does not name was planted (or is foreign) and stays out of the chain, so `verify` reports it.
   * Without it (tools, tests), every undigested file is listed.
   */
  state?: Pick<StateStore, 'getPartition'>;
}

export interface AppendDigestInput {
  runId: string;
  /** The days this run scanned. */
  scans: DigestScan[];
  /** Files noted for the next digest (META's `pendingDigest`); the result says which are settled. */
  pending?: readonly PendingDigestFile[];
  /**
   * The chain's head as the state recorded it, already checked against the archive (`chainHeadMatches`):
   * then only the head is read (and any digest a racing writer appends after it), and the files listed
   * are the `pending` ones that were committed. Without it the whole chain is read and every data
   * prefix listed (a reconciliation).
   */
  head?: ChainHead;
}

export interface AppendDigestResult {
  key: string;
  seq: number;
  /** SHA-256 (hex) of the digest's bytes as written: with `seq`, the chain's new head. */
  sha256: string;
  createdAt: string;
  files: number;
  rows: number;
  /** Data files left out: neither digested nor named by their partition's manifest. */
  foreign: string[];
  /** Keys of `pending` notes done with: digested (now or before), or never committed. */
  settled: string[];
}

const MAX_RACES = 5;

/** Where a position of the chain stands: the digest before the one to write, and what is listed already. */
interface Tip {
  previous: { seq: number; key: string; sha256: string } | undefined;
  listed: Set<string>;
}

/**
 * Appends one signed, write-once digest to the chain, listing every data file and quarantined record that
 * no digest lists yet and that the archiver committed (see `AppendDigestDeps.state`). With a checked
 * `head`, those come from the notes kept as files were written (`pending`), so the cost does not grow with
 * the archive; without, from listing `history/`, `active/` and `quarantine/` against the whole chain.
 * Either way it lists what is undigested rather than what this run wrote, so a crash between publishing
 * data and writing the digest is healed by the next call. A run that adds nothing still writes a digest
 * (so a silent stretch of time is visible). Losing a race for the next position (write-once conflict)
 * reads what the winner wrote and retries.
 */
export async function appendDigest(
  deps: AppendDigestDeps,
  input: AppendDigestInput,
): Promise<AppendDigestResult> {
  const { objects, signer, clock, logger } = deps;
  await publishPublicKey(deps);
  const notes = new Notes(deps, input.pending ?? []);
  let tip: Tip | undefined = input.head
    ? { previous: { seq: input.head.seq, key: input.head.key, sha256: input.head.sha256 }, listed: new Set() }
    : undefined;
  for (let attempt = 1; attempt <= MAX_RACES; attempt++) {
    tip ??= await wholeChainTip(objects);
    const { files, foreign } =
      input.head === undefined
        ? await listUndigested(deps, tip.listed, notes)
        : await notes.collect(tip.listed);
    for (const f of files) {
      if (f.rows === null && f.dataset !== 'quarantine')
        logger.warn('data file is not readable Parquet; listed as is', { key: f.key });
    }
    const seq = (tip.previous?.seq ?? 0) + 1;
    const body: DigestBody = {
      format: DIGEST_FORMAT_VERSION,
      seq,
      runId: input.runId,
      createdAt: clock.now().toISOString(),
      keyId: signer.keyId,
      algorithm: signer.algorithm,
      previous: tip.previous ? { key: tip.previous.key, sha256: tip.previous.sha256 } : null,
      scans: input.scans,
      files,
    };
    const signature = Buffer.from(await signer.sign(signedBytes(body))).toString('base64');
    const digest: Digest = { ...body, signature };
    const key = digestKeys.digest(seq);
    const text = `${JSON.stringify(digest, null, 1)}\n`;
    if (await objects.putIfAbsent(key, text)) {
      const rows = files.reduce((a, f) => a + (f.rows ?? 0), 0);
      logger.debug('digest written', { key, files: files.length, rows });
      if (foreign.length > 0) {
        logger.error('data files the archiver never committed: not digested (verify reports them)', {
          files: foreign,
        });
      }
      const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
      const settled = notes.settled(new Set([...tip.listed, ...files.map((f) => f.key)]));
      return { key, seq, sha256, createdAt: body.createdAt, files: files.length, rows, foreign, settled };
    }
    logger.warn('another writer took this digest position; reading what it wrote', { key, attempt });
    tip = input.head === undefined ? undefined : await stepForward(objects, key, seq, tip);
  }
  throw new ArchiverError('CONFLICT', `digest chain kept changing: ${MAX_RACES} attempts lost the race`);
}

async function wholeChainTip(objects: ObjectStore): Promise<Tip> {
  const chain = await readDigestChain(objects);
  const listed = new Set<string>();
  for (const e of chain.entries) for (const f of e.digest?.files ?? []) listed.add(f.key);
  const last = chain.entries.at(-1);
  return { previous: last ? { seq: last.seq, key: last.key, sha256: last.sha256 } : undefined, listed };
}

/** The tip after the digest another writer put at `seq`: its files are listed now. */
async function stepForward(
  objects: ObjectStore,
  key: string,
  seq: number,
  tip: Tip,
): Promise<Tip | undefined> {
  const bytes = await objects.get(key);
  if (!bytes) return undefined; // gone again: read the whole chain
  const parsed = digestSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
  if (!parsed.success) return undefined;
  for (const f of parsed.data.files) tip.listed.add(f.key);
  return { previous: { seq, key, sha256: sha256OfBytes(bytes) }, listed: tip.listed };
}

/** Every object under the listed prefixes that no digest lists and that the archiver committed. */
async function listUndigested(
  deps: AppendDigestDeps,
  listed: ReadonlySet<string>,
  notes: Notes,
): Promise<{ files: DigestFile[]; foreign: string[] }> {
  const files: DigestFile[] = [];
  const foreign: string[] = [];
  for (const prefix of digestKeys.listedPrefixes) {
    for await (const o of deps.objects.list(prefix)) {
      if (listed.has(o.key)) continue;
      if ((await notes.membership?.of(o.key)) === 'unlisted') {
        foreign.push(o.key);
        continue;
      }
      const file = await describeDataFile(o.key, objectSource(deps.objects, o.key, o.size));
      if (await notes.changedSinceStaged(file)) foreign.push(o.key);
      else files.push(file);
    }
  }
  // Notes of files this listing did not find: never committed ones are settled now.
  await notes.collect(new Set([...listed, ...files.map((f) => f.key)]), false);
  return { files, foreign };
}

/**
 * The notes of files to digest, each found where it stands: committed and published (listed by the
 * digest), committed but not published yet (kept for the next one), or never committed (settled:
 * unlisted, and its staged file gone or old enough to be an orphan).
 */
class Notes {
  readonly membership: ManifestMembership | undefined;
  readonly #deps: AppendDigestDeps;
  readonly #notes: readonly PendingDigestFile[];
  readonly #dropped = new Set<string>();
  /** Noted keys found published under a name no manifest lists (over every attempt). */
  readonly #foreign = new Set<string>();

  constructor(deps: AppendDigestDeps, notes: readonly PendingDigestFile[]) {
    this.#deps = deps;
    this.#notes = notes;
    this.membership = deps.state === undefined ? undefined : new ManifestMembership(deps.state);
  }

  /** The noted files to list now (unless `describe` is false), skipping those `listed` already. */
  async collect(
    listed: ReadonlySet<string>,
    describe = true,
  ): Promise<{ files: DigestFile[]; foreign: string[] }> {
    const { objects } = this.#deps;
    const files: DigestFile[] = [];
    const now = this.#deps.clock.now().getTime();
    for (const note of this.#notes) {
      if (listed.has(note.key) || this.#dropped.has(note.key)) continue;
      const found = await objects.head(note.key);
      if (dataKeyInfo(note.key).dataset === 'quarantine') {
        // Written after its note, with no manifest: there, or never written.
        if (!found) this.#dropped.add(note.key);
        else if (describe)
          files.push(await describeDataFile(note.key, objectSource(objects, note.key, found.size)));
        continue;
      }
      const membership = (await this.membership?.of(note.key)) ?? 'listed';
      if (membership === 'listed') {
        // Committed: listed once published; until then kept for a later digest.
        if (found && describe) {
          const file = await describeDataFile(note.key, objectSource(objects, note.key, found.size));
          if (!(await this.changedSinceStaged(file))) files.push(file);
          else {
            // Not the bytes its writer staged: never signed; verify reports it as outside the chain.
            this.#foreign.add(note.key);
            this.#dropped.add(note.key);
          }
        }
        continue;
      }
      if (found) {
        // Published under a name no manifest lists: not ours (see `ManifestMembership`).
        this.#foreign.add(note.key);
        this.#dropped.add(note.key);
        continue;
      }
      const staged = note.stagingKey === undefined ? undefined : await objects.head(note.stagingKey);
      if (!staged || now - Date.parse(note.at) >= ORPHAN_AGE_MS || Number.isNaN(Date.parse(note.at)))
        this.#dropped.add(note.key);
    }
    return { files, foreign: [...this.#foreign] };
  }

  /**
   * Whether a published file is not what its writer staged: its manifest entry recorded another SHA-256
   * or size (entries from before the hash was recorded are not checked).
   */
  async changedSinceStaged(file: DigestFile): Promise<boolean> {
    const entry = await this.membership?.entry(file.key);
    if (entry?.sha256 === undefined) return false;
    return entry.sha256 !== file.sha256 || entry.bytes !== file.bytes;
  }

  /** The notes done with, given what the chain lists now. */
  settled(listed: ReadonlySet<string>): string[] {
    return this.#notes.filter((n) => listed.has(n.key) || this.#dropped.has(n.key)).map((n) => n.key);
  }
}

/** Publishes the signer's public key once; refuses to sign with a different key than the published one. */
async function publishPublicKey(deps: AppendDigestDeps): Promise<void> {
  const { objects, signer, clock } = deps;
  const chain = { info: await objects.get(digestKeys.publicKeyInfo) };
  if (!chain.info) {
    await objects.putIfAbsent(digestKeys.publicKeyPem, await signer.publicKeyPem());
    await objects.putIfAbsent(
      digestKeys.publicKeyInfo,
      `${JSON.stringify({ keyId: signer.keyId, algorithm: signer.algorithm, publishedAt: clock.now().toISOString() })}\n`,
    );
    chain.info = await objects.get(digestKeys.publicKeyInfo);
  }
  let published: { keyId?: string };
  try {
    published = JSON.parse(new TextDecoder().decode(chain.info)) as { keyId?: string };
    if (typeof published !== 'object' || published === null) throw new Error('not an object');
  } catch (error) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `${digestKeys.publicKeyInfo} is not valid JSON (${(error as Error).message}): restore it from the public key you published (see docs/integrity.md)`,
    );
  }
  const pem = new TextDecoder().decode((await objects.get(digestKeys.publicKeyPem)) ?? new Uint8Array());
  if (published.keyId !== signer.keyId || pem.trim() !== (await signer.publicKeyPem()).trim()) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `The archive's digests are signed with key ${published.keyId ?? '?'}, but this run has key ${signer.keyId}: restore the original signing key (see docs/integrity.md)`,
    );
  }
}
