import { ATHENA_SESSIONS_TABLE, tokenLookup } from '../analytics/index.ts';
import { loadConfig, readTokenKey, secretsManagerTokenKey } from '../archive/index.ts';
import { ArchiverError, terminalJson } from '../foundation/index.ts';
import { keysDirOf } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import type { CliFlags } from './parseCliFlags.ts';
import { readSecretLine, type SecretInput } from './readSecretLine.ts';

/**
 * `token-hmac`: a token's digest under the archive's token key, and the query by that digest alone. The
 * token is read from stdin (a prompt with echo off on a terminal), never from argv; the key from where
 * the archiver reads it: the local archive's keys folder (`--dest`, `--keys-dir`), or the stack's
 * token-key secret (`--token-key-secret`, Secrets Manager). The domain work is `tokenLookup`.
 */
export async function tokenHmacCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const v = flags.values;
  const secretId = typeof v['token-key-secret'] === 'string' ? v['token-key-secret'] : undefined;
  const table = typeof v.table === 'string' ? v.table : ATHENA_SESSIONS_TABLE;
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(table))
    throw new ArchiverError('CONFIG_INVALID', `--table must be TABLE or DATABASE.TABLE, got '${table}'`);
  const tokenKey = secretId
    ? await secretsManagerTokenKey(secretId)
    : await readTokenKey(
        keysDirOf(
          loadConfig({
            flags: { dest: v.dest, 'keys-dir': v['keys-dir'] },
            env: io.env,
            readsOnly: true,
          }),
          io.env,
        ),
      );
  const stdin = io.stdin ?? (process.stdin as SecretInput);
  const token = await readSecretLine(stdin, io.stderr, 'Token (not shown): ');
  const { digest, sql } = tokenLookup(token, tokenKey, table);
  io.stdout.write(v.json ? `${terminalJson({ digest, sql })}\n` : `${digest}\n\n${sql}\n`);
  return 0;
}
