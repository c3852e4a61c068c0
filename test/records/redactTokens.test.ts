import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TokenPolicy } from '../../lib/archive/records/archiveRow.ts';
import { canonicalJson } from '../../lib/archive/records/canonicalJson.ts';
import { isTokenBearingName, redactTokens } from '../../lib/archive/records/redactTokens.ts';
import { tokenHmac } from '../../lib/archive/records/tokenHmac.ts';
import { TEST_TOKEN_KEY } from './historyRecords.ts';

const key = TEST_TOKEN_KEY;
const hmac = (value: string) => tokenHmac(key, value);

const TOKEN_NAMES = [
  'token',
  'token_value',
  'virtual_token_value',
  'virtualToken',
  'ACCESS_TOKEN',
  'clientSecret',
  'password',
  'Passwd',
  'apikey',
  'api_key',
  'X-Api-Key',
  'Authorization',
  'credentials',
  'awsCredential',
] as const;
const PLAIN_NAMES = ['user_email', 'domains', 'region', 'nested', 'id', 'port', 'tok', 'keys'] as const;

describe('isTokenBearingName', () => {
  it.each(TOKEN_NAMES)('matches %s', (name) => expect(isTokenBearingName(name)).toBe(true));
  it.each(PLAIN_NAMES)('does not match %s', (name) => expect(isTokenBearingName(name)).toBe(false));
});

describe('redactTokens', () => {
  const input = {
    token_value: 'RAW-1',
    virtual_token_value: null,
    region: 'eu',
    nested: {
      Authorization: 'Bearer RAW-2',
      items: [{ apiKey: 'RAW-3', keep: 1 }, 'plain', [{ password: { deep: 'RAW-4' } }]],
    },
    credentials: 42,
  };

  it('hashes token-bearing values at any depth, inside arrays too, and keeps the rest', () => {
    expect(redactTokens(input, 'hash', key)).toEqual({
      token_value: hmac('RAW-1'),
      virtual_token_value: null,
      region: 'eu',
      nested: {
        Authorization: hmac('Bearer RAW-2'),
        items: [
          { apiKey: hmac('RAW-3'), keep: 1 },
          'plain',
          [{ password: hmac(canonicalJson({ deep: 'RAW-4' })) }],
        ],
      },
      credentials: hmac('42'),
    });
  });

  it('drops token-bearing properties at any depth', () => {
    expect(redactTokens(input, 'drop', key)).toEqual({
      region: 'eu',
      nested: { items: [{ keep: 1 }, 'plain', [{}]] },
    });
  });

  it('replaces a secret quoted inside another value, under hash and under drop', () => {
    const item = {
      auth_token: 'Q7PZ3K9XA',
      details: { note: 'token=Q7PZ3K9XA used', list: ['x Q7PZ3K9XA'] },
    };
    const hashed = JSON.stringify(redactTokens(item, 'hash', key));
    expect(hashed).not.toContain('Q7PZ3K9XA');
    expect(hashed).toContain(`token=hmac:${tokenHmac(key, 'Q7PZ3K9XA')} used`);
    const dropped = JSON.stringify(redactTokens(item, 'drop', key));
    expect(dropped).not.toContain('Q7PZ3K9XA');
    expect(dropped).toContain('token=[redacted] used');
    // Secrets known from elsewhere (the record's own token columns) are searched for too.
    expect(
      JSON.stringify(redactTokens({ url: 'https://x/?t=ABCDEF123' }, 'hash', key, ['ABCDEF123'])),
    ).not.toContain('ABCDEF123');
  });

  it('keeps everything under keep', () => {
    expect(redactTokens(input, 'keep', key)).toEqual(input);
  });

  it('never mutates its input', () => {
    const before = structuredClone(input);
    redactTokens(input, 'drop', key);
    redactTokens(input, 'hash', key);
    expect(input).toEqual(before);
  });

  it('keeps a __proto__ key as data', () => {
    const raw = JSON.parse('{"__proto__":{"token":"RAW-5","a":1}}') as unknown;
    const out = redactTokens(raw, 'hash', key) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"token":"${hmac('RAW-5')}","a":1}}`);
  });

  it.each([null, 1, 'RAW-top', true])(
    'returns the scalar %j unchanged (no name, nothing to match)',
    (value) => {
      expect(redactTokens(value, 'hash', key)).toBe(value);
    },
  );

  /** Raw tokens look like `RAW-TOKEN-<n>`: upper case and hyphens, so never inside lower-case hex. */
  const rawToken = fc.nat().map((n) => `RAW-TOKEN-${n}`);
  const plainLeaf = fc.oneof(
    fc.constantFrom('eu', 'a.example', ''),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const tree = fc.letrec<{ node: unknown; secret: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      plainLeaf,
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom(...PLAIN_NAMES), tie('node'), { maxKeys: 4 }),
      fc.dictionary(fc.constantFrom(...TOKEN_NAMES), tie('secret'), { minKeys: 1, maxKeys: 3 }),
    ),
    // What a token-bearing name may hold: a raw token, or any structure with raw tokens inside.
    secret: fc.oneof(
      rawToken,
      fc.array(rawToken, { minLength: 1, maxLength: 3 }),
      fc.dictionary(fc.constantFrom(...PLAIN_NAMES), rawToken, { minKeys: 1, maxKeys: 3 }),
      tie('node'),
    ),
  }));

  it.each<TokenPolicy>(['hash', 'drop'])(
    'leaves no raw token anywhere under %s, however deep (property)',
    (policy) => {
      fc.assert(
        fc.property(tree.node, (value) => {
          expect(JSON.stringify(redactTokens(value, policy, key)) ?? '').not.toContain('RAW-TOKEN-');
        }),
        { numRuns: 300 },
      );
    },
  );

  it('changes nothing under keep (property)', () => {
    fc.assert(
      fc.property(tree.node, (value) => {
        expect(redactTokens(value, 'keep', key)).toEqual(value);
      }),
      { numRuns: 100 },
    );
  });
});
