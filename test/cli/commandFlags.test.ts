import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_FLAGS, type CommandName, commandsTaking } from '../../lib/cli/commandFlags.ts';
import { COMMANDS } from '../../lib/cli/commands.ts';
import { exitCodeFor } from '../../lib/cli/exitCodes.ts';
import { main } from '../../lib/cli/main.ts';
import { captureIo } from './cliKit.ts';

const PARSED = (Object.keys(COMMAND_FLAGS) as CommandName[]).filter((c) => c !== 'emulator');
const ALL_FLAGS = [...new Set(PARSED.flatMap((c) => Object.keys(COMMAND_FLAGS[c])))].sort();
const USAGE_ERROR = exitCodeFor('CONFIG_INVALID');

/** `--name` with a value when the flag takes one somewhere. */
function argvOf(name: string): string[] {
  const owner = commandsTaking(name)[0];
  const spec = owner && (COMMAND_FLAGS[owner] as Record<string, { type: string }>)[name];
  return spec?.type === 'string' ? [`--${name}`, '2026-11-20'] : [`--${name}`];
}

describe('COMMAND_FLAGS', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ta-command-flags-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs the CLI in-process on an archive folder of the test's own; the folder must stay empty. */
  async function refused(command: string, flag: string): Promise<string> {
    const { io, err } = captureIo({ ARCHIVE_DEST: `file://${dir}/archive`, TUNNEL_API_KEY: 'k' });
    const code = await main([command, ...argvOf(flag)], io);
    expect(code, `${command} --${flag}`).toBe(USAGE_ERROR);
    expect(await readdir(dir), `${command} --${flag} created nothing`).toEqual([]);
    return err();
  }

  it.each([
    ['verify', 'days'],
    ['verify', 'quiet'],
    ['verify', 'token-values'],
    ['status', 'page-size'],
    ['status', 'keys-dir'],
    ['report', 'log-format'],
    ['report', 'quiet'],
    ['recover', 'max-passes'],
    ['recover', 'window-days'],
    ['active', 'dest'],
    ['active', 'days'],
    ['repair', 'now'],
    ['repair', 'row-group-size'],
    ['query', 'state'],
    ['detect', 'log-level'],
  ])('%s rejects --%s, a flag it does not use, with exit 2 and names who takes it', async (command, flag) => {
    const err = await refused(command, flag);
    expect(err).toContain(
      `error [CONFIG_INVALID]: ${command} does not take --${flag} (a flag of ${commandsTaking(flag).join(', ')}); see tunnel-archiver ${command} --help`,
    );
  });

  it('every command rejects every flag of another command that it does not take, creating nothing', async () => {
    let checked = 0;
    for (const command of PARSED)
      for (const flag of ALL_FLAGS.filter((f) => !(f in COMMAND_FLAGS[command]))) {
        expect(await refused(command, flag)).toContain(`${command} does not take --${flag}`);
        checked++;
      }
    expect(checked).toBeGreaterThan(100);
  });

  it('start refuses --base-url without a key: it would archive the embedded emulator instead', async () => {
    const { io, err } = captureIo({ ARCHIVE_DEST: `file://${dir}/archive` });
    expect(await main(['start', '--base-url', 'http://127.0.0.1:9'], io)).toBe(USAGE_ERROR);
    expect(err()).toContain('start takes --base-url only with TUNNEL_API_KEY set');
    expect(await readdir(dir)).toEqual([]);
  });

  it('a flag no command takes is an unknown flag', async () => {
    expect(await refused('run', 'bogus')).toContain('unknown flag --bogus; see tunnel-archiver run --help');
  });

  it("is what each command's help lists, flag for flag", () => {
    for (const command of PARSED) {
      expect(COMMANDS[command]?.flags).toBe(COMMAND_FLAGS[command]);
    }
  });

  it.each(PARSED)("%s --help lists exactly the command's flags", async (command) => {
    const { io, out } = captureIo();
    expect(await main([command, '--help'], io)).toBe(0);
    const listed = [...out().matchAll(/^ {2}--([a-z0-9-]+)/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(Object.keys(COMMAND_FLAGS[command]).sort());
  });
});
