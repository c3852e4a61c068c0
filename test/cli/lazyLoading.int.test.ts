import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleOf, staticallyLoaded } from '../support/staticallyLoaded.ts';
import { REPO_ROOT, spawnIn } from './cliKit.ts';

const run = async (argv: string[], env: Record<string, string> = {}) => {
  const fixture = [process.execPath, 'bin/run-ts.js', 'test/cli/fixtures/loadedModules.ts'];
  const r = await spawnIn(REPO_ROOT, [...fixture, ...argv], env);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { code: number; loaded: number };
};

describe('the CLI loads the AWS SDK and DuckDB only when a command needs them', () => {
  it.each([
    [['--help'], 0],
    [['run', '--help'], 0],
    [['help', 'query'], 0],
    [['run', '--page-size', '0'], 2],
    [['status'], 2],
    [['query', 'SELECT 1'], 2],
    [['report', '--help'], 0],
  ])('%j loads neither (exit %i)', async (argv, code) => {
    expect(await run(argv)).toEqual({ code, loaded: 0 });
  });

  it('control: a dynamodb:// state does load the SDK (so the check above can see it)', async () => {
    const env = {
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:1',
      AWS_MAX_ATTEMPTS: '1',
    };
    const r = await run(['status', '--dest', 's3://bucket-x/p', '--state', 'dynamodb://tbl'], env);
    expect(r.code).toBe(1);
    expect(r.loaded).toBeGreaterThan(0);
  });
});

describe("the report's packages stay out of every command but report", () => {
  const heavy = /from\s*"(@observablehq\/plot|linkedom|playwright-core)"/;
  it('no module the CLI loads at start imports Plot or linkedom; the chunk of the report command does', async () => {
    const main = await bundleOf('lib/cli/main.ts');
    const atStart = staticallyLoaded(main);
    expect(atStart.length).toBeGreaterThan(0);
    expect(atStart.filter((f) => heavy.test(readFileSync(f, 'utf8')))).toEqual([]);
    // Control: the packages are in the bundle's folder, in a chunk only `import()` reaches.
    const all = readdirSync(path.dirname(main)).map((f) => path.join(path.dirname(main), f));
    expect(
      all.filter((f) => f.endsWith('.js') && heavy.test(readFileSync(f, 'utf8'))).length,
    ).toBeGreaterThan(0);
  });
});
