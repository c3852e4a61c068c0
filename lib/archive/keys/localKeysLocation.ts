import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** The environment variables that place a user's configuration folder (XDG Base Directory). */
export interface ConfigHomeEnv {
  XDG_CONFIG_HOME?: string | undefined;
  HOME?: string | undefined;
}

/**
 * The user's configuration folder: `$XDG_CONFIG_HOME` when it is an absolute path (the XDG rule: a
 * relative one is ignored), else `$HOME/.config`, else the account's home folder's `.config`.
 */
export function userConfigHome(env: ConfigHomeEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && path.isAbsolute(xdg)) return xdg;
  return path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir(), '.config');
}

/**
 * The name of a local archive's keys folder: the archive folder's name (letters, digits, `.`, `_`, `-`
 * kept, anything else `_`, at most 40 characters) and the first 16 hex characters of the SHA-256 of its
 * absolute path, so two archives of the same name never share keys. An archive moved to another path
 * gets another name: the run then refuses its keys (`checkArchiveKeys`) until ARCHIVE_KEYS_DIR names the
 * old folder (docs/local-mode-security.md).
 */
export function archiveKeysName(destDir: string): string {
  const absolute = path.resolve(destDir);
  const base = (path.basename(absolute) || 'archive').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  return `${base}-${createHash('sha256').update(absolute, 'utf8').digest('hex').slice(0, 16)}`;
}

/** The per-user keys folder of a local archive: `<config home>/tunnel-archiver/keys/<archive keys name>`. */
export function userKeysDir(destDir: string, env: ConfigHomeEnv): string {
  return path.join(userConfigHome(env), 'tunnel-archiver', 'keys', archiveKeysName(destDir));
}

/** The keys folder inside the archive, where archives made before the per-user default keep their keys. */
export function archiveKeysDir(destDir: string): string {
  return path.join(destDir, '.keys');
}

/** Where a local archive's keys are, and why there. */
export interface LocalKeysLocation {
  dir: string;
  /** `keys-dir`: ARCHIVE_KEYS_DIR; `archive`: an existing `<dest>/.keys`; `user`: the per-user default. */
  source: 'keys-dir' | 'archive' | 'user';
}

/**
 * The keys folder of a local archive: ARCHIVE_KEYS_DIR when set; else an existing `<dest>/.keys` (an
 * archive made before the per-user default: its keys are read where they are, never moved, and the CLI
 * warns that a copy of the archive carries them); else the per-user folder ({@link userKeysDir}).
 */
export function locateLocalKeys(
  destDir: string,
  keysDir: string | undefined,
  env: ConfigHomeEnv,
  exists: (p: string) => boolean = existsSync,
): LocalKeysLocation {
  if (keysDir) return { dir: path.resolve(keysDir), source: 'keys-dir' };
  const inArchive = archiveKeysDir(destDir);
  if (exists(inArchive)) return { dir: inArchive, source: 'archive' };
  return { dir: userKeysDir(destDir, env), source: 'user' };
}

/** What the CLI says when it reads keys from inside the archive. */
export function keysInArchiveWarning(destDir: string, env: ConfigHomeEnv): string {
  return (
    `the archive's private keys are in ${archiveKeysDir(destDir)}, inside the archive: any copy of the archive carries them. ` +
    `Move them out (mv ${archiveKeysDir(destDir)} ${userKeysDir(destDir, env)}), or set ARCHIVE_KEYS_DIR; they keep being read where they are until then`
  );
}
