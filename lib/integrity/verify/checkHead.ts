import { type DigestChain, digestKeys } from '../../archive/index.ts';
import { ArchiverError } from '../../foundation/index.ts';
import type { VerifyFailure } from './verifyTypes.ts';

/** A chain head someone recorded outside the bucket: the state (every run writes it) or an auditor. */
export interface ExpectedHead {
  seq: number;
  sha256: string;
  /** Who recorded it, for the message: `the state` or `--expect-head`. */
  source: string;
}

/** `SEQ:SHA256` (what `run` prints as the chain head) as an expected head; a clear error otherwise. */
export function parseExpectedHead(text: string, source = '--expect-head'): ExpectedHead {
  const m = /^(\d+):([0-9a-fA-F]{64})$/.exec(text.trim());
  const seq = Number(m?.[1]);
  if (!m || !Number.isSafeInteger(seq) || seq < 1) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `${source} must be SEQ:SHA256 (the digest's position and the SHA-256 of its bytes, as run prints it), got '${text}'`,
    );
  }
  return { seq, sha256: (m[2] as string).toLowerCase(), source };
}

/**
 * A chain cannot show by itself that its newest digests were removed. Against a head recorded where
 * the bucket's writers cannot rewind it: a chain that ends before that head is `truncated` (naming the
 * missing range), and a digest at that position with other bytes was rewritten (`chain`).
 */
export function checkHead(chain: DigestChain, expected: ExpectedHead): VerifyFailure[] {
  const last = chain.entries.at(-1)?.seq ?? 0;
  if (last < expected.seq) {
    const from = digestKeys.digest(last + 1);
    const to = digestKeys.digest(expected.seq);
    return [
      {
        kind: 'truncated',
        object: from,
        message: `the chain ends at digest ${last}, but ${expected.source} recorded digest ${expected.seq} as its head: ${from === to ? from : `${from} to ${to}`} removed`,
      },
    ];
  }
  const entry = chain.entries.find((e) => e.seq === expected.seq);
  if (entry && entry.sha256 !== expected.sha256) {
    return [
      {
        kind: 'chain',
        object: entry.key,
        message: `${entry.key} is not the digest ${expected.source} recorded as head ${expected.seq} (SHA-256 ${expected.sha256}, found ${entry.sha256}): it was rewritten`,
      },
    ];
  }
  return [];
}
