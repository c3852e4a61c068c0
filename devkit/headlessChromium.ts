import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's `chromium` (what `.ci/run` installs) and other system Chromium builds live. */
const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/**
 * The system Chromium, never a downloaded one: `CHROMIUM_PATH`, else the usual paths. Throws, naming
 * what was tried and how to install it, when there is none: a browser test fails, it never skips.
 */
export function chromiumPath(
  env: NodeJS.ProcessEnv = process.env,
  candidates: readonly string[] = CANDIDATES,
): string {
  const tried = [env.CHROMIUM_PATH, ...candidates].filter((p): p is string => Boolean(p));
  const found = tried.find((p) => existsSync(p));
  if (found) return found;
  throw new Error(
    `No Chromium found (tried ${tried.join(', ')}): install it with \`apt-get install -y chromium\` (.ci/run does), or set CHROMIUM_PATH`,
  );
}

/** Headless Chromium driven by playwright-core; the caller closes it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in CI containers has no user namespaces for the sandbox.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}
