import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { loadLocalKeys, localKeysDir } from '../../lib/archive/keys/loadLocalKeys.ts';
import { keysInArchiveWarning, userKeysDir } from '../../lib/archive/keys/localKeysLocation.ts';
import { keysLocationOf, loadCliKeys } from '../../lib/cli/buildRuntime.ts';

let root: string;
let dest: string;
let env: Record<string, string>;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ta-cli-keys-'));
  dest = join(root, 'archive');
  await mkdir(dest);
  env = { XDG_CONFIG_HOME: join(root, 'config'), ARCHIVE_DEST: `file://${dest}` };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const warnings = () => {
  const said: string[] = [];
  return { said, logger: { warn: (m: string) => void said.push(m) } };
};

describe('the keys of a CLI run on a local archive', () => {
  it('are made in the per-user folder for a new archive, nothing inside the archive, and no warning', async () => {
    const config = loadConfig({ env });
    const { said, logger } = warnings();
    const keys = await loadCliKeys(config, env, logger);
    expect(keysLocationOf(config, env)).toEqual({ dir: userKeysDir(dest, env), source: 'user' });
    const again = await loadLocalKeys(userKeysDir(dest, env));
    expect(Buffer.from(again.tokenKey).equals(Buffer.from(keys.tokenKey))).toBe(true);
    expect(said).toEqual([]);
  });

  it('are read from DIR/.keys for an archive made before, with a warning that says how to move them', async () => {
    const old = await loadLocalKeys(localKeysDir(dest));
    const config = loadConfig({ env });
    const { said, logger } = warnings();
    const keys = await loadCliKeys(config, env, logger);
    expect(Buffer.from(keys.tokenKey).equals(Buffer.from(old.tokenKey))).toBe(true);
    expect(keys.signer.keyId).toBe(old.signer.keyId);
    expect(said).toEqual([keysInArchiveWarning(dest, env)]);
    expect(said[0]).toMatch(/inside the archive: any copy of the archive carries them/);
    expect(said[0]).toContain(`mv ${localKeysDir(dest)} ${userKeysDir(dest, env)}`);
  });
});
