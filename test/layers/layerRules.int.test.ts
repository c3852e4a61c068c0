import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-layers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small lib/ tree in its own folder, cruised with the project's rules. */
async function cruise(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const root = await mkdtemp(join(dir, 'tree-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  try {
    const { stdout } = await promisify(execFile)(DEPCRUISE, ['lib', '--config', CONFIG], { cwd: root });
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

describe('the layer rules (npm run layers, part of npm test)', () => {
  const run = { 'lib/run/runIt.ts': 'export const run = 1;\n' };

  it('a lower layer importing a higher one fails, and the message names the rule', async () => {
    const r = await cruise({
      ...run,
      'lib/clock/helper.ts': "import { run } from '../run/runIt.ts';\nexport const x = run;\n",
    });
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/error layer-foundation: lib\/clock\/helper\.ts → lib\/run\/runIt\.ts/);
  });

  it('two folders of one layer importing each other fail (no folder cycles)', async () => {
    const r = await cruise({
      'lib/records/a.ts': "import { b } from '../store/b.ts';\nexport const a = b;\n",
      'lib/store/b.ts': 'export const b = 1;\n',
    });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('layer-data-folders-apart');
  });

  it('the AWS SDK outside its adapters fails', async () => {
    const r = await cruise({
      'lib/run/usesSdk.ts': "import { S3Client } from '@aws-sdk/client-s3';\nexport const c = S3Client;\n",
    });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('aws-sdk-only-in-adapters');
  });

  it('the control: a higher layer importing a lower one passes', async () => {
    const r = await cruise({
      ...run,
      'lib/clock/helper.ts': 'export const x = 1;\n',
      'lib/run/uses.ts': "import { x } from '../clock/helper.ts';\nexport const y = x;\n",
    });
    expect(r.code, r.out).toBe(0);
  });
});
