import { mapLimit } from '../concurrency/mapLimit.ts';
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
    if (!bytes) return undefined; // removed between list and get
    const entry: ChainEntry = { key, seq, sha256: sha256OfBytes(bytes) };
    try {
      const parsed = digestSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
      if (parsed.success) entry.digest = parsed.data;
      else entry.error = `not a valid digest: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
    } catch (error) {
      entry.error = `not JSON: ${(error as Error).message}`;
    }
    return entry;
  });
  const entries = read.filter((e): e is ChainEntry => e !== undefined);
  entries.sort((a, b) => a.seq - b.seq);
  const chain: DigestChain = { entries, strays };
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
