import { describe, expect, it } from 'vitest';
import { toObservedFields } from '../../lib/archive/active/toObservedFields.ts';
import { TOKEN_POLICIES } from '../../lib/archive/records/archiveRow.ts';
import { keyRecord } from '../../lib/archive/records/keyedRecord.ts';
import { tokenHmac } from '../../lib/archive/records/tokenHmac.ts';
import { baseRecord } from '../records/historyRecords.ts';
import { session, TOKEN_KEY } from './activeKit.ts';

const TOKEN = 'RAWTOKEN123';
const VIRTUAL = `${TOKEN}-10003`;
/** A live session whose unnamed fields carry secrets: by name at any depth, and quoted in other text. */
const live = session('live-1', {
  token: TOKEN,
  virtualToken: VIRTUAL,
  ...({
    apiKey: 'sk-live-abcdef',
    meta: { note: `opened with ${TOKEN}`, client: { authorization: 'Bearer zzz-secret-9' } },
    tags: ['a', { refreshToken: 'rt-123456' }],
  } as Record<string, unknown>),
});
/** The same unnamed fields on a history record, as history's `extra_json` redacts them. */
const history = baseRecord({
  token_value: TOKEN,
  virtual_token_value: VIRTUAL,
  apiKey: 'sk-live-abcdef',
  meta: { note: `opened with ${TOKEN}`, client: { authorization: 'Bearer zzz-secret-9' } },
  tags: ['a', { refreshToken: 'rt-123456' }],
});
const SECRETS = [TOKEN, 'sk-live-abcdef', 'zzz-secret-9', 'rt-123456'];

describe('the token policy of active rows', () => {
  it.each(TOKEN_POLICIES.filter((p) => p !== 'keep'))(
    'under %s, no stored field of a live row holds a raw token, extra_json included',
    (tokenPolicy) => {
      const fields = toObservedFields(live, { tokenPolicy, tokenKey: TOKEN_KEY });
      const stored = JSON.stringify(fields);
      for (const secret of SECRETS) expect(stored).not.toContain(secret);
      expect(fields.token).toBeNull();
      expect(fields.virtual_token).toBeNull();
      expect(fields.extra_json).not.toBeNull();
    },
  );

  it.each(TOKEN_POLICIES)(
    'under %s, extra_json is redacted exactly as history redacts the same fields',
    (tokenPolicy) => {
      const fields = toObservedFields(live, { tokenPolicy, tokenKey: TOKEN_KEY });
      const keyed = keyRecord(history, { tokenPolicy, tokenKey: TOKEN_KEY, archivedAt: new Date(0) });
      if (!keyed.ok) throw new Error(keyed.reason);
      // The history row's extras hold the same unnamed fields; the live row's token is its `token`.
      expect(JSON.parse(fields.extra_json ?? 'null')).toEqual(
        JSON.parse(keyed.keyed.row().extra_json ?? 'null'),
      );
    },
  );

  it('hashes with the token key under hash: a reader with the key can still match a value', () => {
    const fields = toObservedFields(live, { tokenPolicy: 'hash', tokenKey: TOKEN_KEY });
    const extra = JSON.parse(fields.extra_json ?? '{}') as { apiKey: string; meta: { note: string } };
    expect(extra.apiKey).toBe(tokenHmac(TOKEN_KEY, 'sk-live-abcdef'));
    expect(extra.meta.note).toBe(`opened with hmac:${tokenHmac(TOKEN_KEY, TOKEN)}`);
  });
});
