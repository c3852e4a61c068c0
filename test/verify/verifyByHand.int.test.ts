import { spawnSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KmsStubHandle, startKmsStub } from '../../devkit/infra/startKmsStub.ts';
import { runCli } from '../../devkit/runCli.ts';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { ed25519Signer } from '../../lib/archive/digest/ed25519Signer.ts';
import { kmsDigestSigner } from '../../lib/archive/digest/kmsDigestSigner.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { parquetOf } from '../digest/digestFixtures.ts';
import { SMALL_DATASET } from '../support/engineKit.ts';

const SCRIPT = fileURLToPath(new URL('../../docs/verify-by-hand.sh', import.meta.url));
const NOW = '2026-10-01T06:00:00.000Z';
/** The only programs the script may use: bash, jq, openssl, and coreutils. */
const ALLOWED = [
  'bash',
  'jq',
  'openssl',
  'sha256sum',
  'cut',
  'sort',
  'uniq',
  'comm',
  'wc',
  'basename',
  'base64',
  'mktemp',
  'rm',
  'cat',
  'stat',
];

let dir: string;
let bin: string;
let emulator: EmulatorHandle;
let kms: KmsStubHandle;
const archives: Record<'ed25519' | 'ecdsa' | 'fixed', string> = { ed25519: '', ecdsa: '', fixed: '' };

/** An Ed25519 key from a fixed seed: its signatures over fixed digests are the same every time. */
function fixedEd25519Pem(): string {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.alloc(32, 7)]);
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-by-hand-'));
  bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const tool of ALLOWED) {
    const where = spawnSync('bash', ['-c', `command -v ${tool}`])
      .stdout.toString()
      .trim();
    if (!where) throw new Error(`${tool} is not installed: .ci/run installs jq and openssl`);
    symlinkSync(where, join(bin, tool));
  }
  // A local archive (Ed25519): two CLI runs, two digests.
  emulator = await startEmulator({ seed: 11, clock: new ManualClock(NOW), dataset: SMALL_DATASET });
  archives.ed25519 = join(dir, 'local');
  for (const now of [NOW, '2026-10-02T06:00:00.000Z']) {
    const r = await runCli(
      ['run', '--now', now, '--base-url', emulator.url, '--dest', `file://${archives.ed25519}`],
      {
        TUNNEL_API_KEY: EMULATOR_PAID_KEY,
        LOG_LEVEL: 'error',
      },
    );
    expect(r.code, r.stderr).toBe(0);
  }
  // An archive signed through KMS (ECDSA P-256, DER), as the stack writes it.
  kms = await startKmsStub();
  archives.ecdsa = join(dir, 'kms');
  const client = new KMSClient({
    endpoint: kms.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const signer = kmsDigestSigner({ client, keyId: 'arn:aws:kms:us-east-1:000000000000:key/by-hand' });
  const objects = createFileObjectStore(archives.ecdsa);
  const deps = { objects, signer, clock: new ManualClock('2026-11-22T10:00:00.000Z'), logger: silentLogger };
  await objects.put('history/dt=2026-11-20/a.parquet', await parquetOf([1, 2, 3]));
  await objects.put('quarantine/day=2026-11-20/q1.json', '{"reason":"bad port"}\n');
  await appendDigest(deps, { runId: 'r1', scans: [] });
  await objects.put('history/dt=2026-11-21/b.parquet', await parquetOf([4], '2026-11-21T01:00:00.000Z'));
  await appendDigest(deps, { runId: 'r2', scans: [] });
  client.destroy();
  // A deterministic archive (fixed key, clock and run ids), so each spelling of a signature below exists.
  archives.fixed = join(dir, 'fixed');
  const fixed = createFileObjectStore(archives.fixed);
  const fixedDeps = {
    objects: fixed,
    signer: ed25519Signer(fixedEd25519Pem()),
    clock: new ManualClock('2026-11-22T10:00:00.000Z'),
    logger: silentLogger,
  };
  await fixed.put('history/dt=2026-11-20/a.parquet', await parquetOf([1, 2, 3]));
  await appendDigest(fixedDeps, { runId: 'r1', scans: [] });
  await appendDigest(fixedDeps, { runId: 'r2', scans: [] });
});
afterAll(async () => {
  await emulator?.close();
  await kms?.close();
  await rm(dir, { recursive: true, force: true });
});

const listed = (archive: string) =>
  readdirSync(join(archive, 'digests'))
    .filter((f) => /^\d{10}\.json$/.test(f))
    .flatMap((f) =>
      (
        JSON.parse(readFileSync(join(archive, 'digests', f), 'utf8')) as { files: { key: string }[] }
      ).files.map((x) => x.key),
    );

/** Each case damages a copy of the archive and returns the object that must be named. */
const CASES: Record<string, (a: string, algorithm: 'ed25519' | 'ecdsa' | 'fixed') => string | undefined> = {
  intact: () => undefined,
  'a changed byte': (a) => {
    const key = listed(a).find((k) => k.endsWith('.parquet')) as string;
    appendFileSync(join(a, key), 'x');
    return key;
  },
  'a removed digest': (a) => {
    rmSync(join(a, 'digests/0000000001.json'));
    return 'digests/0000000001.json';
  },
  'a planted file': (a) => {
    const key = 'history/dt=2026-09-30/planted.parquet';
    mkdirSync(join(a, 'history/dt=2026-09-30'), { recursive: true });
    cpSync(join(a, listed(a).find((k) => k.endsWith('.parquet')) as string), join(a, key));
    return key;
  },
  'an edited digest': (a) => {
    const file = join(a, 'digests/0000000002.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"runId": "', '"runId": "forged-'));
    return 'digests/0000000002.json';
  },
  'a planted findings file': (a) => {
    const key = 'findings/dt=2026-09-30/planted.parquet';
    mkdirSync(join(a, 'findings/dt=2026-09-30'), { recursive: true });
    cpSync(join(a, listed(a).find((k) => k.endsWith('.parquet')) as string), join(a, key));
    return key;
  },
  'another key under digests/': (a) => {
    writeFileSync(join(a, 'digests/notes.txt'), 'not part of the chain\n');
    return 'digests/notes.txt';
  },
  'a member added to a digest': (a) => {
    const file = join(a, 'digests/0000000002.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('{', '{\n "note": "added after signing",'));
    return 'digests/0000000002.json';
  },
  'a member removed from a digest': (a) => {
    const file = join(a, 'digests/0000000002.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^ "runId": .*\n/m, ''));
    return 'digests/0000000002.json';
  },
  'a member added to a listed file': (a) => {
    const file = join(a, 'digests/0000000001.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"bytes": ', '"note": 1,\n   "bytes": '));
    return 'digests/0000000001.json';
  },
  'a wrong key': (a, algorithm) => {
    const { publicKey } =
      algorithm === 'ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(
      join(a, 'digests/public-key.pem'),
      publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    );
    return 'digests/0000000001.json';
  },
};

/** Rewrites digest 1's signature as `spell` spells it: the same bytes, another text. */
function respell(a: string, spell: (sig: string) => string): string {
  const file = join(a, 'digests/0000000001.json');
  const text = readFileSync(file, 'utf8');
  const sig = (JSON.parse(text) as { signature: string }).signature;
  const other = spell(sig);
  expect(other).not.toBe(sig);
  expect(Buffer.from(other, 'base64')).toEqual(Buffer.from(sig, 'base64'));
  writeFileSync(file, text.replace(`"signature": "${sig}"`, `"signature": ${JSON.stringify(other)}`));
  return 'digests/0000000001.json';
}

/** Other spellings of the same signature bytes, which standard padded base64 (§4) rules out. */
const SPELLINGS: Record<string, (a: string) => string> = {
  'the signature unpadded': (a) => respell(a, (s) => s.replace(/=+$/, '')),
  'the signature in the URL-safe alphabet': (a) =>
    respell(a, (s) => s.replace(/\+/g, '-').replace(/\//g, '_')),
  'the signature with its padding doubled': (a) => respell(a, (s) => `${s}==`),
  'the signature broken over two lines': (a) => respell(a, (s) => `${s.slice(0, 40)}\n${s.slice(40)}`),
};

function byHand(archive: string): { code: number | null; out: string } {
  const r = spawnSync(join(bin, 'bash'), [SCRIPT, archive], { env: { PATH: bin, LC_ALL: 'C' } });
  return { code: r.status, out: r.stdout.toString() + r.stderr.toString() };
}

describe('docs/verify-by-hand.sh, an auditor’s own verifier', () => {
  it('is at most 90 lines', () => {
    expect(readFileSync(SCRIPT, 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(90);
  });

  const cases = [
    ...(['ed25519', 'ecdsa'] as const).flatMap((algorithm) =>
      Object.entries(CASES).map(([name, damage]) => ({ algorithm, name, damage })),
    ),
    ...Object.entries(SPELLINGS).map(([name, damage]) => ({ algorithm: 'fixed' as const, name, damage })),
    { algorithm: 'fixed' as const, name: 'intact', damage: () => undefined },
  ];
  for (const { algorithm, name, damage } of cases) {
    it(`${algorithm}: ${name}: the script and verify agree, and both name the object`, async () => {
      const copy = join(dir, `${algorithm}-${name.replace(/\W+/g, '-')}`);
      cpSync(archives[algorithm], copy, {
        recursive: true,
        filter: (src) => !/\/\.(state|keys)(\/|$)/.test(src),
      });
      const object = damage(copy, algorithm);
      const script = byHand(copy);
      const verified = await verifyArchive(
        { objects: createFileObjectStore(copy), clock: new ManualClock(NOW) },
        { windowDays: 60 },
      );
      expect(script.out).not.toMatch(/command not found|No such file/);
      expect(script.code === 0, script.out).toBe(verified.ok);
      if (object === undefined) {
        expect(script.code, script.out).toBe(0);
        expect(script.out).toMatch(/^OK: 2 digest\(s\)/m);
      } else {
        expect(script.code, script.out).toBe(1);
        expect(script.out).toContain(`${object}: `);
        expect(verified.failures.map((f) => f.object)).toContain(object);
      }
      expect(existsSync(copy)).toBe(true);
    });
  }
});
