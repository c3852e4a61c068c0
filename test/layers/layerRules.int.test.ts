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
      {
        'lib/archive/run/runIt.ts': one('run'),
        'lib/foundation/clock/helper.ts': importing('run', '../../archive/run/runIt.ts'),
      },
      /error layer-foundation: lib\/foundation\/clock\/helper\.ts → lib\/archive\/run\/runIt\.ts/,
    ));

  it('two folders of one layer importing each other fail (no folder cycles)', () =>
    broken(
      { 'lib/archive/records/a.ts': importing('b', '../store/b.ts'), 'lib/archive/store/b.ts': one('b') },
      'layer-data-folders-apart',
    ));

  it('the AWS SDK outside its adapters fails', () =>
    broken(
      { 'lib/archive/run/usesSdk.ts': importing('S3Client', '@aws-sdk/client-s3') },
      'aws-sdk-only-in-adapters',
    ));

  it("the control: a higher layer importing a lower one, through its group's entry point, passes", () =>
    clean({
      'lib/foundation/clock/helper.ts': one('x'),
      'lib/foundation/index.ts': "export { x } from './clock/helper.ts';\n",
      'lib/archive/run/uses.ts': importing('x', '../../foundation/index.ts'),
    }));

  it("a group importing another's file past its entry points fails (group-through-entry)", () =>
    broken(
      {
        'lib/archive/walk/walkDay.ts': one('walkDay'),
        'lib/integrity/verify/uses.ts': importing('walkDay', '../../archive/walk/walkDay.ts'),
      },
      /error group-through-entry: lib\/integrity\/verify\/uses\.ts → lib\/archive\/walk\/walkDay\.ts/,
    ));

  it("an entry point re-exporting another group's file fails (entry-exports-own-group)", () =>
    broken(
      {
        'lib/foundation/clock/helper.ts': one('x'),
        'lib/archive/index.ts': "export { x } from '../foundation/clock/helper.ts';\n",
      },
      /error entry-exports-own-group: lib\/archive\/index\.ts → lib\/foundation\/clock\/helper\.ts/,
    ));

  it.each([
    ['lib/foundation/clock/a.ts', '../../archive/index.ts', 'group-foundation-below', 'lib/archive/index.ts'],
    ['lib/archive/run/a.ts', '../../analytics/index.ts', 'group-archive-below', 'lib/analytics/index.ts'],
    [
      'lib/integrity/verify/a.ts',
      '../../analytics/index.ts',
      'group-integrity-analytics-below',
      'lib/analytics/index.ts',
    ],
    ['lib/analytics/detect/a.ts', '../../cli/main.ts', 'group-integrity-analytics-below', 'lib/cli/main.ts'],
  ])('%s importing %s, above or beside its group, fails (%s)', (from, spec, name, to) =>
    broken({ [to]: one('k'), [from]: importing('k', spec) }, new RegExp(`error ${name}: ${from} → ${to}`)),
  );

  it('a lib folder placed in no layer fails, whether it imports or is imported', async () => {
    await broken(
      {
        'lib/foundation/clock/helper.ts': one('x'),
        'lib/newroom/uses.ts': importing('x', '../foundation/clock/helper.ts'),
      },
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
    ['lib/foundation/clock/a.ts', 'lib-below-entry-points'],
  ])('%s importing bench/ fails (%s)', (from, rule) =>
    broken(
      {
        'bench/caseKit.ts': one('k'),
        [from]: importing('k', `${'../'.repeat(from.split('/').length - 1)}bench/caseKit.ts`),
      },
      rule,
    ),
  );

  it("the bench's own tests import bench/, and the bench and the tests import the dev kit", () =>
    clean({
      'devkit/kit.ts': importing('c', '../lib/foundation/clock/c.ts'),
      'lib/foundation/clock/c.ts': one('c'),
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
      'lib/archive/run/planRun.ts': one('planRun'),
      'lib/archive/run/runStages.ts': importing('planRun', './planRun.ts'),
    };
    await broken(
      { ...run, 'lib/archive/fanout/plan.ts': importing('planRun', '../run/planRun.ts') },
      /error fanout-through-run-stages: lib\/archive\/fanout\/plan\.ts → lib\/archive\/run\/planRun\.ts/,
    );
    await clean({ ...run, 'lib/archive/fanout/plan.ts': importing('y', '../run/runStages.ts') });
  });

  it("the state store imports a feature's state items, and only those, from above it", async () => {
    await clean({
      'lib/integrity/verify/verifyProgress.ts': one('verifyProgressSchema'),
      'lib/archive/state/archiveMeta.ts': importing(
        'verifyProgressSchema',
        '../../integrity/verify/verifyProgress.ts',
      ),
    });
    await broken(
      {
        'lib/integrity/verify/verifyWeekly.ts': one('verifyWeekly'),
        'lib/archive/state/archiveMeta.ts': importing(
          'verifyWeekly',
          '../../integrity/verify/verifyWeekly.ts',
        ),
      },
      /error layer-data: lib\/archive\/state\/archiveMeta\.ts → lib\/integrity\/verify\/verifyWeekly\.ts/,
    );
  });

  it("a feature's state item importing above lib/archive/state fails (feature-state-items-stay-low)", () =>
    broken(
      {
        'lib/archive/run/runIt.ts': one('run'),
        'lib/archive/active/activeState.ts': importing('run', '../run/runIt.ts'),
        'lib/archive/state/statePorts.ts': importing('y', '../active/activeState.ts'),
      },
      /error feature-state-items-stay-low: lib\/archive\/active\/activeState\.ts → lib\/archive\/run\/runIt\.ts/,
    ));
});
