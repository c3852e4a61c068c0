import { execFileSync } from 'node:child_process';

const versions = new Map<string, string>();

/** The version (`v24.21.0`) of the Node binary at `node`, asked of it once a process (this one's: its own). */
export function nodeVersion(node: string): string {
  if (node === process.execPath) return process.version;
  let version = versions.get(node);
  if (version === undefined) {
    version = execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
    versions.set(node, version);
  }
  return version;
}
