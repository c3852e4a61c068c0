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

/** A small tree in its own folder, cruised with the project's rules (its top folders, as `npm run layers`). */
async function cruise(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const root = await mkdtemp(join(dir, 'tree-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  try {
    const tops = [...new Set(Object.keys(files).map((path) => path.split('/')[0] as string))];
    const { stdout } = await promisify(execFile)(DEPCRUISE, [...tops, '--config', CONFIG], { cwd: root });
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

  it('a lib folder placed in no layer fails, whether it imports or is imported', async () => {
    const importing = await cruise({
      'lib/clock/helper.ts': 'export const x = 1;\n',
      'lib/newroom/uses.ts': "import { x } from '../clock/helper.ts';\nexport const y = x;\n",
    });
    expect(importing.code).not.toBe(0);
    expect(importing.out).toMatch(/error lib-folder-in-a-layer-importing: lib\/newroom\/uses\.ts/);
    const imported = await cruise({
      'lib/newroom/thing.ts': 'export const t = 1;\n',
      'lib/cli/uses.ts': "import { t } from '../newroom/thing.ts';\nexport const y = t;\n",
    });
    expect(imported.code).not.toBe(0);
    expect(imported.out).toMatch(/error lib-folder-in-a-layer: lib\/cli\/uses\.ts → lib\/newroom\/thing\.ts/);
  });

  it.each([
    [
      'functions/fanout/a.ts',
      "import { b } from '../detect/b.ts';\nexport const a = b;\n",
      'functions/detect/b.ts',
    ],
    [
      'functions/shared/a.ts',
      "import { b } from '../detect/b.ts';\nexport const a = b;\n",
      'functions/detect/b.ts',
    ],
  ])('%s importing another function folder fails (function-folders-apart)', async (from, text, to) => {
    const r = await cruise({ [from]: text, [to]: 'export const b = 1;\n' });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('function-folders-apart');
  });

  it('a function folder importing functions/shared/ passes', async () => {
    const r = await cruise({
      'functions/shared/b.ts': 'export const b = 1;\n',
      'functions/fanout/a.ts': "import { b } from '../shared/b.ts';\nexport const a = b;\n",
    });
    expect(r.code, r.out).toBe(0);
  });

  it.each([
    ['test/parquet/a.test.ts', 'bench-below-its-tests'],
    ['lib/clock/a.ts', 'lib-below-entry-points'],
  ])('%s importing bench/ fails (%s)', async (from, rule) => {
    const r = await cruise({
      'bench/caseKit.ts': 'export const k = 1;\n',
      [from]: "import { k } from '../../bench/caseKit.ts';\nexport const a = k;\n",
    });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain(rule);
  });

  it("the bench's own tests import bench/, and the bench imports the tests' kits", async () => {
    const r = await cruise({
      'bench/caseKit.ts': "import { s } from '../test/support/kit.ts';\nexport const k = s;\n",
      'test/support/kit.ts': 'export const s = 1;\n',
      'test/bench/caseKit.test.ts': "import { k } from '../../bench/caseKit.ts';\nexport const a = k;\n",
    });
    expect(r.code, r.out).toBe(0);
  });

  it('importing a test file fails, from the bench or another test (test-files-import-no-test-file)', async () => {
    const r = await cruise({
      'test/run/a.test.ts': 'export const t = 1;\n',
      'bench/b.ts': "import { t } from '../test/run/a.test.ts';\nexport const b = t;\n",
    });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('bench-imports-no-test');
    expect(r.out).toContain('test-files-import-no-test-file');
  });

  it('the fan-out reaching a run stage outside runStages fails (fanout-through-run-stages)', async () => {
    const run = {
      'lib/run/planRun.ts': 'export const planRun = 1;\n',
      'lib/run/runStages.ts':
        "import { planRun } from './planRun.ts';\nexport const runStages = { planRun };\n",
    };
    const direct = await cruise({
      ...run,
      'lib/fanout/plan.ts': "import { planRun } from '../run/planRun.ts';\nexport const p = planRun;\n",
    });
    expect(direct.code).not.toBe(0);
    expect(direct.out).toMatch(
      /error fanout-through-run-stages: lib\/fanout\/plan\.ts → lib\/run\/planRun\.ts/,
    );
    const through = await cruise({
      ...run,
      'lib/fanout/plan.ts':
        "import { runStages } from '../run/runStages.ts';\nexport const p = runStages.planRun;\n",
    });
    expect(through.code, through.out).toBe(0);
  });
});
