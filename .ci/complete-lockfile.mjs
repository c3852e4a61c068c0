// The sandbox's npm registry mirror lacks some other-platform optional binaries (biome, duckdb), so npm
// leaves them out of package-lock.json and `npm ci` then refuses the lock. This adds their entries (name,
// version, os/cpu/libc) so `npm ci` accepts the lock; npm skips them on platforms they are not for and
// fetches them by name and version where they are. Run after regenerating the lock.
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const target = (name) => {
  const m = /-(android|darwin|linux|win32)-(arm64|x64)(-musl)?$/.exec(name);
  return m
    ? { os: [m[1]], cpu: [m[2]], ...(m[1] === 'linux' ? { libc: [m[3] ? 'musl' : 'glibc'] } : {}) }
    : undefined;
};
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    const t = target(dep);
    if (lock.packages[key] || !t) continue;
    lock.packages[key] = { version, ...t, ...(entry.dev ? { dev: true } : {}), optional: true };
    added++;
    void path;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform entries`);
