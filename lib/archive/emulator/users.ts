import { Rng, seedFrom } from './prng.ts';

/** A token as the dashboard knows it. */
export interface EmulatedToken {
  tokenId: number;
  value: string;
  name: string | null;
}

/** A virtual token base; on the wire it appears as `<base>-<port>`. */
export interface EmulatedVirtualToken {
  base: string;
  name: string | null;
  /** Virtual subdomain prefix, e.g. `mytest.v.awesomeapp`. */
  host: string;
}

/** One person using the account: the source of `user_email`, tokens and custom domains. */
export interface EmulatedUser {
  userId: number;
  email: string;
  tokens: EmulatedToken[];
  virtualTokens: EmulatedVirtualToken[];
  customDomains: string[];
}

/** Always present first, so every seed exercises non-ASCII e-mail addresses. */
const FIXED_EMAILS = [
  'jürgen@exämple.de',
  'zoë.ørsted@bücher.example',
  'δοκιμή@παράδειγμα.δοκιμή',
  'иван.петров@пример.рф',
  '用户@例子.广告',
  'youremail@example.com',
];
const LOCALS = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'mallory',
];
const DOMAINS = ['example.com', 'example.org', 'corp.example', 'mail.example.net', 'dev.example.io'];
const TOKEN_NAMES = ['laptop', 'ci-runner', 'raspberry-pi', 'staging', 'demo', 'home-server'];
const HOST_WORDS = ['mytest', 'awesomeapp', 'shop', 'api', 'iot', 'grafana', 'webhook', 'preview'];
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The seed's user pool: stable for a seed, independent of the day. */
export function usersForSeed(seed: string | number, count: number): EmulatedUser[] {
  const rng = new Rng(seedFrom(seed, 'users'));
  const users: EmulatedUser[] = [];
  for (let i = 0; i < count; i++) {
    const email =
      FIXED_EMAILS[i] ??
      `${rng.pick(LOCALS)}.${rng.chars('abcdefghijklmnopqrstuvwxyz', 3)}${i}@${rng.pick(DOMAINS)}`;
    const tokens = Array.from({ length: rng.int(1, 3) }, () => ({
      tokenId: rng.int(100_000, 999_999),
      value: rng.chars(UPPER_DIGITS, 9),
      name: rng.chance(0.5) ? rng.pick(TOKEN_NAMES) : null,
    }));
    const virtualTokens = Array.from({ length: rng.int(0, 2) }, () => ({
      base: rng.chars(MIXED, 10),
      name: rng.chance(0.4) ? rng.pick(TOKEN_NAMES) : null,
      host: `${rng.pick(HOST_WORDS)}.v.${rng.pick(HOST_WORDS)}${rng.int(1, 99)}`,
    }));
    const customDomains = Array.from(
      { length: rng.int(0, 2) },
      (_, k) => `${rng.pick(HOST_WORDS)}${k}.${rng.pick(DOMAINS)}`,
    );
    users.push({ userId: rng.int(1_000_000, 9_999_999), email, tokens, virtualTokens, customDomains });
  }
  return users;
}
