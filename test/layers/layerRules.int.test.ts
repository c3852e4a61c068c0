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

/** The tree fails the check, and the output matches each of `says` (the rule's name, the files). */
async function broken(files: Record<string, string>, ...says: (string | RegExp)[]): Promise<void> {
  const r = await cruise(files);
  expect(r.code).not.toBe(0);
  for (const s of says) expect(r.out).toMatch(s);
}

/** The tree passes the check. */
async function clean(files: Record<string, string>): Promise<void> {
  const r = await cruise(files);
  expect(r.code, r.out).toBe(0);
}

/** A module importing `name` from `from`, and exporting it again as `y`. */
const importing = (name: string, from: string): string =>
  `import { ${name} } from '${from}';\nexport const y = ${name};\n`;
/** A module exporting `name`. */
const one = (name: string): string => `export const ${name} = 1;\n`;

describe('the layer rules (npm run layers, part of npm test)', () => {
  it('a lower layer importing a higher one fails, and the message names the rule', () =>
    broken(
      { 'lib/run/runIt.ts': one('run'), 'lib/clock/helper.ts': importing('run', '../run/runIt.ts') },
      /error layer-foundation: lib\/clock\/helper\.ts → lib\/run\/runIt\.ts/,
    ));

  it('two folders of one layer importing each other fail (no folder cycles)', () =>
    broken(
      { 'lib/records/a.ts': importing('b', '../store/b.ts'), 'lib/store/b.ts': one('b') },
      'layer-data-folders-apart',
    ));

  it('the AWS SDK outside its adapters fails', () =>
    broken(
      { 'lib/run/usesSdk.ts': importing('S3Client', '@aws-sdk/client-s3') },
      'aws-sdk-only-in-adapters',
    ));

  it('the control: a higher layer importing a lower one passes', () =>
    clean({ 'lib/clock/helper.ts': one('x'), 'lib/run/uses.ts': importing('x', '../clock/helper.ts') }));

  it('a lib folder placed in no layer fails, whether it imports or is imported', async () => {
    await broken(
      { 'lib/clock/helper.ts': one('x'), 'lib/newroom/uses.ts': importing('x', '../clock/helper.ts') },
      /error lib-folder-in-a-layer-importing: lib\/newroom\/uses\.ts/,
    );
    await broken(
      { 'lib/newroom/thing.ts': one('t'), 'lib/cli/uses.ts': importing('t', '../newroom/thing.ts') },
      /error lib-folder-in-a-layer: lib\/cli\/uses\.ts → lib\/newroom\/thing\.ts/,
    );
  });

  it.each(['functions/fanout/a.ts', 'functions/shared/a.ts'])(
    '%s importing another function folder fails (function-folders-apart)',
    (from) =>
      broken(
        { [from]: importing('b', '../detect/b.ts'), 'functions/detect/b.ts': one('b') },
        'function-folders-apart',
      ),
  );

  it('a function folder importing functions/shared/ passes', () =>
    clean({ 'functions/shared/b.ts': one('b'), 'functions/fanout/a.ts': importing('b', '../shared/b.ts') }));

  it.each([
    ['test/parquet/a.test.ts', 'bench-below-its-tests'],
    ['lib/clock/a.ts', 'lib-below-entry-points'],
  ])('%s importing bench/ fails (%s)', (from, rule) =>
    broken({ 'bench/caseKit.ts': one('k'), [from]: importing('k', '../../bench/caseKit.ts') }, rule),
  );

  it("the bench's own tests import bench/, and the bench and the tests import the dev kit", () =>
    clean({
      'devkit/kit.ts': importing('c', '../lib/clock/c.ts'),
      'lib/clock/c.ts': one('c'),
      'bench/caseKit.ts': importing('y', '../devkit/kit.ts'),
      'test/run/a.test.ts': importing('y', '../../devkit/kit.ts'),
      'test/bench/caseKit.test.ts': importing('y', '../../bench/caseKit.ts'),
    }));

  it('the bench importing a kit under test/ fails (bench-imports-no-test)', () =>
    broken(
      { 'test/support/kit.ts': one('s'), 'bench/caseKit.ts': importing('s', '../test/support/kit.ts') },
      /error bench-imports-no-test: bench\/caseKit\.ts → test\/support\/kit\.ts/,
    ));

  it.each([
    ['lib/cli/a.ts', '../../devkit/kit.ts'],
    ['functions/shared/a.ts', '../../devkit/kit.ts'],
    ['infra/a.ts', '../devkit/kit.ts'],
    ['bin/a.ts', '../devkit/kit.ts'],
  ])('%s importing the dev kit fails (product-imports-no-devkit)', (from, to) =>
    broken(
      { 'devkit/kit.ts': one('k'), [from]: importing('k', to) },
      new RegExp(`error product-imports-no-devkit: ${from.replace('.', '\\.')} → devkit/kit\\.ts`),
    ),
  );

  it.each([
    ['test/support/kit.ts', '../test/support/kit.ts'],
    ['bench/caseKit.ts', '../bench/caseKit.ts'],
  ])('the dev kit importing %s fails (devkit-imports-no-test-or-bench)', (file, spec) =>
    broken({ [file]: one('k'), 'devkit/kit.ts': importing('k', spec) }, 'devkit-imports-no-test-or-bench'),
  );

  it('importing a test file fails, from the bench or another test (test-files-import-no-test-file)', () =>
    broken(
      { 'test/run/a.test.ts': one('t'), 'bench/b.ts': importing('t', '../test/run/a.test.ts') },
      'bench-imports-no-test',
      'test-files-import-no-test-file',
    ));

  it('the fan-out reaching a run stage outside runStages fails (fanout-through-run-stages)', async () => {
    const run = {
      'lib/run/planRun.ts': one('planRun'),
      'lib/run/runStages.ts': importing('planRun', './planRun.ts'),
    };
    await broken(
      { ...run, 'lib/fanout/plan.ts': importing('planRun', '../run/planRun.ts') },
      /error fanout-through-run-stages: lib\/fanout\/plan\.ts → lib\/run\/planRun\.ts/,
    );
    await clean({ ...run, 'lib/fanout/plan.ts': importing('y', '../run/runStages.ts') });
  });

  it("the state store imports a feature's state items, and only those, from above it", async () => {
    await clean({
      'lib/verify/verifyProgress.ts': one('verifyProgressSchema'),
      'lib/state/archiveMeta.ts': importing('verifyProgressSchema', '../verify/verifyProgress.ts'),
    });
    await broken(
      {
        'lib/verify/verifyWeekly.ts': one('verifyWeekly'),
        'lib/state/archiveMeta.ts': importing('verifyWeekly', '../verify/verifyWeekly.ts'),
      },
      /error layer-data: lib\/state\/archiveMeta\.ts → lib\/verify\/verifyWeekly\.ts/,
    );
  });

  it("a feature's state item importing above lib/state fails (feature-state-items-stay-low)", () =>
    broken(
      {
        'lib/run/runIt.ts': one('run'),
        'lib/active/activeState.ts': importing('run', '../run/runIt.ts'),
        'lib/state/statePorts.ts': importing('y', '../active/activeState.ts'),
      },
      /error feature-state-items-stay-low: lib\/active\/activeState\.ts → lib\/run\/runIt\.ts/,
    ));
});
