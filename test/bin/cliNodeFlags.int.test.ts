import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cliNodeFlags } from '../../bench/cliNodeFlags.ts';
import { CLI } from '../support/runCli.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const tmp = tempDirPer('ta-cli-flags-');

describe('the Node flags the CLI runs with', () => {
  it('bounds the young generation, and npm start and the docs give the same flags as the shebang', () => {
    const flags = cliNodeFlags();
    expect(flags).toContain('--max-semi-space-size=8');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.start).toBe(`node ${flags.join(' ')} bin/tunnel-archiver.js start`);
    // docs/cli.md names the flags a user who starts the CLI with `node` should pass.
    expect(readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')).toContain(
      `The executable starts Node with \`${flags.join(' ')}\``,
    );
  });

  it('reach the process when the executable is run as it is installed (npx, a linked bin)', async () => {
    // A preload script reports the flags Node was started with, from inside the CLI's own process.
    const preload = join(tmp.dir, 'report.cjs');
    writeFileSync(preload, "process.stderr.write('EXECARGV ' + JSON.stringify(process.execArgv) + '\\n');\n");
    const { stderr } = await promisify(execFile)(CLI, ['--help'], {
      env: { ...process.env, NODE_OPTIONS: `--require ${preload}` },
    });
    const line = stderr.split('\n').find((l) => l.startsWith('EXECARGV '));
    expect(JSON.parse(line?.slice('EXECARGV '.length) ?? '[]')).toEqual(cliNodeFlags());
  }, 60_000);
});
