import { mapLimit } from '../../foundation/index.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { sha256OfBytes } from './describeDataFile.ts';
import { digestKeys } from './digestKeys.ts';
import { type Digest, digestSchema, type PublicKeyInfo, publicKeyInfoSchema } from './digestSchema.ts';

/** One object under `digests/` that has a digest key, parsed or not. */
export interface ChainEntry {
  key: string;
  seq: number;
  sha256: string;
  /** The parsed digest, or undefined when the object is not a valid digest (see `error`). */
  digest?: Digest;
  /** The JSON exactly as stored, every member included: what the signature is checked over. */
  stored?: Record<string, unknown>;
  error?: string;
}

export interface DigestChain {
  /** Every digest-keyed object, in key (= sequence) order. */
  entries: ChainEntry[];
  /** Keys under `digests/` that are neither digests, nor the public key, nor the key check. */
  strays: string[];
  publicKey?: { pem: string; info: PublicKeyInfo };
  publicKeyError?: string;
}

const DIGEST_READ_CONCURRENCY = 16;

function describeIssue(issue: { message: string; path: PropertyKey[] } | undefined): string {
  if (!issue) return 'invalid';
  const at = issue.path.map(String).join('.');
  return at === '' ? issue.message : `${at}: ${issue.message}`;
}

/** Reads the whole digest chain and the published public key. Read-only; validates each object with zod. */
export async function readDigestChain(objects: ObjectStore): Promise<DigestChain> {
  const keys: { key: string; seq: number }[] = [];
  const strays: string[] = [];
  for await (const o of objects.list(digestKeys.prefix)) {
    if (
      o.key === digestKeys.publicKeyPem ||
      o.key === digestKeys.publicKeyInfo ||
      o.key === digestKeys.keyCheck
    )
      continue;
    const seq = digestKeys.seqOf(o.key);
    if (seq === undefined) strays.push(o.key);
    else keys.push({ key: o.key, seq });
  }
  // Digests are small and there is one per run: fetch them in parallel, keep them in chain order.
  const read = await mapLimit(keys, DIGEST_READ_CONCURRENCY, async ({ key, seq }) => {
    const bytes = await objects.get(key);
    return bytes ? parseChainEntry(key, seq, bytes) : undefined; // undefined: removed between list and get
  });
  const entries = read.filter((e): e is ChainEntry => e !== undefined);
  entries.sort((a, b) => a.seq - b.seq);
  return { entries, strays, ...(await readPublicKey(objects)) };
}

/** One stored digest as a chain entry: parsed strictly, with the JSON as stored kept for the signature. */
export function parseChainEntry(key: string, seq: number, bytes: Uint8Array): ChainEntry {
  const entry: ChainEntry = { key, seq, sha256: sha256OfBytes(bytes) };
  try {
    const stored: unknown = JSON.parse(new TextDecoder().decode(bytes));
    // Strict: a member the format does not define (added after signing, or by another writer) fails here.
    const parsed = digestSchema.safeParse(stored);
    if (parsed.success) {
      entry.digest = parsed.data;
      entry.stored = stored as Record<string, unknown>;
    } else entry.error = `not a valid digest: ${describeIssue(parsed.error.issues[0])}`;
  } catch (error) {
    entry.error = `not JSON: ${(error as Error).message}`;
  }
  return entry;
}

/** The published public key (both files), or why it cannot be used. */
export async function readPublicKey(
  objects: ObjectStore,
): Promise<Pick<DigestChain, 'publicKey' | 'publicKeyError'>> {
  const chain: Pick<DigestChain, 'publicKey' | 'publicKeyError'> = {};
  const pem = await objects.get(digestKeys.publicKeyPem);
  const info = await objects.get(digestKeys.publicKeyInfo);
  if (pem && info) {
    try {
      chain.publicKey = {
        pem: new TextDecoder().decode(pem),
        info: publicKeyInfoSchema.parse(JSON.parse(new TextDecoder().decode(info))),
      };
    } catch (error) {
      chain.publicKeyError = `${digestKeys.publicKeyInfo} is not valid: ${(error as Error).message}`;
    }
  } else if (pem || info) {
    chain.publicKeyError = `${pem ? digestKeys.publicKeyInfo : digestKeys.publicKeyPem} is missing`;
  }
  return chain;
}
