import { createHash } from 'node:crypto';
import type { Clock } from '../clock/clock.ts';
import { ManifestMembership } from '../commit/manifestMembership.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import type { Logger } from '../log/logger.ts';
import type { StateStore } from '../state/stateStore.ts';
import { objectSource } from '../store/byteSource.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { describeDataFile } from './describeDataFile.ts';
import { digestKeys } from './digestKeys.ts';
import {
  DIGEST_FORMAT_VERSION,
  type Digest,
  type DigestBody,
  type DigestFile,
  type DigestScan,
  signedBytes,
} from './digestSchema.ts';
import type { DigestSigner } from './digestSigner.ts';
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
}

const MAX_RACES = 5;

/**
 * Appends one signed, write-once digest to the chain, listing every data file under `history/` and
 * `active/` that no digest lists yet and that the archiver committed (see `AppendDigestDeps.state`),
 * and every quarantined record under `quarantine/` that no digest lists yet. Because it lists what is undigested rather than what this run
 * wrote, a crash between publishing data and writing the digest is healed by the next call. A run that
 * adds nothing still writes a digest (so a silent stretch of time is visible). Losing a race for the
 * next position (write-once conflict) re-reads the chain and retries.
 */
export async function appendDigest(
  deps: AppendDigestDeps,
  input: AppendDigestInput,
): Promise<AppendDigestResult> {
  const { objects, signer, clock, logger } = deps;
  await publishPublicKey(deps);
  const membership = deps.state === undefined ? undefined : new ManifestMembership(deps.state);
  for (let attempt = 1; attempt <= MAX_RACES; attempt++) {
    const foreign: string[] = [];
    const chain = await readDigestChain(objects);
    const listed = new Set<string>();
    for (const e of chain.entries) for (const f of e.digest?.files ?? []) listed.add(f.key);
    const last = chain.entries.at(-1);
    const files: DigestFile[] = [];
    for (const prefix of digestKeys.listedPrefixes) {
      for await (const o of objects.list(prefix)) {
        if (listed.has(o.key)) continue;
        if ((await membership?.of(o.key)) === 'unlisted') {
          foreign.push(o.key);
          continue;
        }
        const file = await describeDataFile(o.key, objectSource(objects, o.key, o.size));
        if (file.rows === null && file.dataset !== 'quarantine')
          logger.warn('data file is not readable Parquet; listed as is', { key: o.key });
        files.push(file);
      }
    }
    const seq = (last?.seq ?? 0) + 1;
    const body: DigestBody = {
      format: DIGEST_FORMAT_VERSION,
      seq,
      runId: input.runId,
      createdAt: clock.now().toISOString(),
      keyId: signer.keyId,
      algorithm: signer.algorithm,
      previous: last ? { key: last.key, sha256: last.sha256 } : null,
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
      return { key, seq, sha256, createdAt: body.createdAt, files: files.length, rows, foreign };
    }
    logger.warn('another writer took this digest position; re-reading the chain', { key, attempt });
  }
  throw new ArchiverError('CONFLICT', `digest chain kept changing: ${MAX_RACES} attempts lost the race`);
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
