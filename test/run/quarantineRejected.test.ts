import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import type { TokenPolicy } from '../../lib/archive/records/archiveRow.ts';
import { rawRecordId } from '../../lib/archive/records/recordId.ts';
import type { RejectedRecord } from '../../lib/archive/records/schemas.ts';
import { tokenHmac } from '../../lib/archive/records/tokenHmac.ts';
import { quarantineRejected } from '../../lib/archive/run/quarantineRejected.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { baseRecord, TEST_TOKEN_KEY } from '../records/historyRecords.ts';

const tokenKey = TEST_TOKEN_KEY;
const now = new Date('2026-11-20T12:00:00.000Z');
const day = '2026-11-19';

/** A rejected item with raw tokens in the known fields and in unknown, nested ones. */
function rejectedItem(): RejectedRecord {
  return {
    raw: {
      ...baseRecord({ token_value: 'RAW-TOKEN-A', virtual_token_value: 'RAW-TOKEN-B' }),
      port: 'eighty',
      extra: { sessionToken: 'RAW-TOKEN-C', list: [{ api_key: 'RAW-TOKEN-D' }] },
    },
    reason: 'content[0]: port: Invalid input: expected number, received string',
  };
}

async function allText(dir: string): Promise<string> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = names.filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
  return (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('\n');
}

describe('quarantineRejected', () => {
  let dir: string;
  let objects: ObjectStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ta-quarantine-'));
    objects = createFileObjectStore(dir);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each<TokenPolicy>(['hash', 'drop'])(
    'leaves no raw token in the quarantine under %s',
    async (tokenPolicy) => {
      const item = rejectedItem();
      const id = rawRecordId(item.raw, tokenKey);
      const written = await quarantineRejected(objects, day, new Map([[id, item]]), now, {
        tokenPolicy,
        tokenKey,
      });
      expect(written).toBe(1);
      const text = await allText(dir);
      expect(text).not.toContain('RAW-TOKEN-');
      const stored = JSON.parse(
        new TextDecoder().decode(await objects.get(archiveKeys.quarantine(day, id))),
      ) as {
        raw: Record<string, unknown>;
        reason: string;
      };
      expect(stored.reason).toBe(item.reason);
      expect(stored.raw.port).toBe('eighty');
      if (tokenPolicy === 'hash') {
        expect(stored.raw.token_value).toBe(tokenHmac(tokenKey, 'RAW-TOKEN-A'));
        expect(stored.raw.virtual_token_value).toBe(tokenHmac(tokenKey, 'RAW-TOKEN-B'));
      } else {
        expect(stored.raw).not.toHaveProperty('token_value');
        expect(stored.raw.extra).toEqual({ list: [{}] });
      }
    },
  );

  it('keeps the raw item whole under keep', async () => {
    const item = rejectedItem();
    const id = rawRecordId(item.raw, tokenKey);
    await quarantineRejected(objects, day, new Map([[id, item]]), now, { tokenPolicy: 'keep', tokenKey });
    const stored = JSON.parse(
      new TextDecoder().decode(await objects.get(archiveKeys.quarantine(day, id))),
    ) as {
      raw: unknown;
    };
    expect(stored.raw).toEqual(item.raw);
  });

  it('writes an item seen again only once', async () => {
    const item = rejectedItem();
    const rejected = new Map([[rawRecordId(item.raw, tokenKey), item]]);
    const redaction = { tokenPolicy: 'hash', tokenKey } as const;
    expect(await quarantineRejected(objects, day, rejected, now, redaction)).toBe(1);
    expect(await quarantineRejected(objects, day, rejected, now, redaction)).toBe(0);
  });
});
