import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ATHENA_SESSIONS_TABLE,
  TOKEN_DIGEST_PLACEHOLDER,
  tokenLookupSql,
} from '../../lib/analytics/query/tokenLookup.ts';
import { loadLocalKeys } from '../../lib/archive/keys/loadLocalKeys.ts';
import { userKeysDir } from '../../lib/archive/keys/localKeysLocation.ts';
import { keyRecord } from '../../lib/archive/records/keyedRecord.ts';
import { main } from '../../lib/cli/main.ts';
import { baseRecord } from '../records/historyRecords.ts';
import { captureIo } from './cliKit.ts';

const TOKEN = 'AAXXYY99F-secret-token';
let root: string;
let dest: string;
let env: Record<string, string>;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ta-token-hmac-'));
  dest = join(root, 'archive');
  env = { XDG_CONFIG_HOME: join(root, 'config'), ARCHIVE_DEST: `file://${dest}` };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `tunnel-archiver token-hmac ARGS` in this process, the token piped on stdin. */
async function tokenHmac(args: string[], stdin: string) {
  const { io, out, err } = captureIo(env);
  const code = await main(['token-hmac', ...args], { ...io, stdin: Readable.from([Buffer.from(stdin)]) });
  return { code, out: out(), err: err() };
}

describe('tunnel-archiver token-hmac', () => {
  it('prints the digest the archiver stores for that token, and a query by the digest alone', async () => {
    const { tokenKey } = await loadLocalKeys(userKeysDir(dest, env));
    const r = await tokenHmac(['--json'], `${TOKEN}\n`);
    expect(r.code, r.err).toBe(0);
    const { digest, sql } = JSON.parse(r.out) as { digest: string; sql: string };
    // What a run archives for a record of this token, under the same key.
    const keyed = keyRecord(baseRecord({ token_value: TOKEN }), {
      tokenPolicy: 'hash',
      tokenKey,
      archivedAt: new Date(0),
    });
    if (!keyed.ok) throw new Error(keyed.reason);
    expect(digest).toBe(keyed.keyed.row().token_hmac);
    expect(sql).toBe(tokenLookupSql(ATHENA_SESSIONS_TABLE, digest));
    // Neither the token nor the key is in what it prints.
    expect(r.out + r.err).not.toContain(TOKEN);
    expect(r.out).not.toContain(Buffer.from(tokenKey).toString('hex'));
  });

  it('takes no token on the command line', async () => {
    await loadLocalKeys(userKeysDir(dest, env));
    const r = await tokenHmac(['--token', TOKEN], '');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown flag --token; see tunnel-archiver token-hmac --help/);
    expect(r.err).not.toContain(TOKEN);
  });

  it('refuses an empty token, and a local archive whose key is not there', async () => {
    await loadLocalKeys(userKeysDir(dest, env));
    expect((await tokenHmac([], '\n')).err).toMatch(/no token given/);
    env.ARCHIVE_DEST = `file://${join(root, 'other')}`;
    expect((await tokenHmac([], TOKEN)).err).toMatch(/token-hmac\.key/);
  });

  it('gives the saved query its digest-only form', () => {
    const sql = tokenLookupSql('db.t', TOKEN_DIGEST_PLACEHOLDER);
    expect(sql).not.toMatch(/hmac_sha256|TOKEN-KEY|YOUR-TOKEN/);
    expect(sql).toContain(`token_hmac = '${TOKEN_DIGEST_PLACEHOLDER}'`);
  });
});
