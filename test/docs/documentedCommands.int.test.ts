import { createHash, createHmac } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, HeadBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SecretsStubHandle, startSecretsStub } from '../../devkit/infra/startSecretsStub.ts';
import { type CfnTemplate, resolver } from '../../devkit/infra/templateArns.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { CLI_CONFIG_HOME, cliKeysDir } from '../../devkit/runCli.ts';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import { uploadFolder } from '../../devkit/uploadFolder.ts';
import { SETTING_KEYS } from '../../infra/stackSettings.ts';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import {
  archiveKeysName,
  keysInArchiveWarning,
  userKeysDir,
} from '../../lib/archive/keys/localKeysLocation.ts';
import { COMMAND_FLAGS } from '../../lib/cli/commandFlags.ts';
import { COMMANDS } from '../../lib/cli/commands.ts';
import { verifyJobIdSchema } from '../../lib/integrity/verify/verifyJobTypes.ts';
import { type ReadOnlyS3Front, startReadOnlyS3Front } from '../support/readOnlyS3Front.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import {
  type DocCommand,
  docCommand,
  docCommands,
  type InlineCommand,
  inlineCommands,
  splitComment,
} from './documentedCommands.ts';
import { parseAwsCall } from './documentedCommandsAws.ts';
import { paste, pasteUntil, type ShellResult, shimPrograms } from './documentedCommandsWorld.ts';

/**
 * Every command README.md and docs/*.md give a reader, and every command the stack prints as an output, run
 * as written against local stand-ins: the CLI against the archive `npm start` makes (its `start`, at a fixed
 * clock), s3rver for `s3://`, dynalite for `dynamodb://`, the emulator for the API; `aws`, `cdk` and `npm`
 * through recording shims whose arguments are checked against the synthesized stack, the AWS CLI's options
 * and package.json. A command no runner knows fails with its page and line.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const documented = PAGES.flatMap((page) => docCommands(page, read(page)));
const inline = PAGES.flatMap((page) => inlineCommands(page, read(page)));

/** The instant every command acts at (`--now` where the command takes it); the archive is made at it. */
const NOW = '2026-11-20T12:00:00Z';
/** The placeholders pages use for a head the reader noted (`412:3f1c…`): the archive's own head. */
const NOTED_HEAD = /\b\d+:[0-9a-f]+…/;

const { template } = synthApp();
const cfn = template.toJSON() as CfnTemplate & { Outputs: Record<string, { Value: unknown }> };
const resolve = resolver(cfn);
const outputs = Object.fromEntries(
  Object.entries(cfn.Outputs).map(([id, o]) => [id, String(resolve(o.Value))]),
) as Record<string, string>;
/** The commands the stack prints, as pages of their own. */
const stackCommands = Object.entries(outputs)
  .filter(([id]) => id.endsWith('Command'))
  .map(([id, value]) => docCommand(`stack output ${id}`, 1, value));

/**
 * Commands not run, each with why. Keep this short: every entry is a documented path nobody checks.
 */
const EXEMPT: { match: (c: DocCommand) => boolean; why: string }[] = [
  {
    match: (c) => c.argv[0] === 'git' && c.argv[1] === 'pull',
    why: "fetches from the reader's own remote; nothing local to stand in for it",
  },
];

/**
 * Exit codes other than 0 that a page gives for a command, with the page's words. Every other command
 * must exit 0.
 */
const EXPECTED_EXIT: { match: RegExp; code: number; why: string; shows: RegExp }[] = [
  {
    match: /detect --fail-on high/,
    code: 9,
    why: 'docs/detections.md: "exit 9 when a finding is high or critical"; the demo plants one pattern per rule',
    shows: /^(HIGH|CRITICAL)\s/m,
  },
];

/**
 * Flags added to a documented command, each with why. A run that starts an archive walks the whole
 * 60-day window: two new S3 archives of it take about 50 s each here, and two of its days take the same
 * path (a first run: no state, the table created, the files, the digest chain started).
 */
const NARROWED: { match: (c: DocCommand, text: string) => boolean; add: string; why: string }[] = [
  {
    match: (c, text) => c.argv[1] === 'run' && /--dest s3:\/\//.test(text) && !c.argv.includes('--days'),
    add: '--days 2026-11-19,2026-11-20',
    why: 'a new S3 archive: two days of the window instead of sixty',
  },
];

/** Files a command reads that the page shows in a block of their own, written as the page shows them. */
const PAGE_FILES: Record<string, { page: string; fence: string }> = {
  'team.yml': { page: 'docs/detections.md', fence: 'yaml' },
};
function pageFile(name: string): string {
  const spec = PAGE_FILES[name];
  if (spec === undefined) throw new Error(`no page shows ${name}`);
  const block = new RegExp(`\`\`\`${spec.fence}\n([\\s\\S]*?)\`\`\``).exec(read(spec.page))?.[1];
  if (block === undefined) throw new Error(`${spec.page} shows no ${spec.fence} block for ${name}`);
  return block;
}

/** Placeholders a page writes for the reader to fill in, and what the reader fills in here. */
const userPlaceholders = (): Record<string, string> => ({
  'VerifyJob state machine ARN': stateMachineArn('VerifyJob'),
  table: 'my-table',
  'the findings source external id': 'external-id-findings',
  'the sessions source external id': 'external-id-sessions',
  'the local keys folder': cliKeysDir(world.archive),
  'new-bucket': 'new-bucket',
  'name shown in the warning': archiveKeysName(join(world.reader, 'DIR')),
  'the key from the Pinggy dashboard': '<the key from the Pinggy dashboard>',
});
/** Buckets a page speaks of as holding an archive already (a copy, the stack's bucket, an auditor's). */
const holdsArchive = (name: string) =>
  ['my-archive-bucket', 'new-bucket', outputs.ArchiveBucketName].includes(name);

function stateMachineArn(idPrefix: string): string {
  const id = Object.keys(cfn.Resources).find(
    (r) => r.startsWith(idPrefix) && cfn.Resources[r]?.Type === 'AWS::StepFunctions::StateMachine',
  );
  if (id === undefined) throw new Error(`no state machine ${idPrefix}* in the template`);
  return String(resolve({ Ref: id }));
}

const tmp = tempDirPer('ta-doc-commands-');
const world = {
  reader: '',
  archive: '',
  pristine: '',
  head: '',
  bin: '',
  log: '',
  startOutput: '',
};
let s3: S3rverHandle;
let front: ReadOnlyS3Front;
let dynamo: DynaliteHandle;
let emulator: EmulatorHandle;
let secrets: SecretsStubHandle;
/** The token-key secret's text in the stand-in Secrets Manager. */
const TOKEN_KEY_SECRET = 'a-token-key-secret-text-of-at-least-32-characters';
/** The token a reader types into `token-hmac`. */
const TOKEN = 'tok_example_123';
/** Each command already run, by what ran and in which shell: the same command on another page runs once. */
const already = new Map<string, string>();
/** The variables each block has told the reader to export so far. */
const exported = new Map<string, Record<string, string>>();
/** What ran, one line each, printed at the end. */
const ran: string[] = [];

const blockOf = (c: DocCommand) => `${c.page}#${c.block}`;
const where = (c: DocCommand) => `${c.page}:${c.line}: ${c.text}`;
const slug = (page: string) =>
  page
    .replace(/^docs\//, '')
    .replace(/\.md$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');

/** The reader's shell for a page: their home, the stand-ins' endpoints, what the page exported. */
function shellEnv(c: DocCommand, s3Endpoint = s3.endpoint): Record<string, string> {
  const home = join(tmp.dir, 'home', slug(c.page));
  mkdirSync(home, { recursive: true });
  return {
    PATH: `${world.bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    XDG_CONFIG_HOME: CLI_CONFIG_HOME,
    TMPDIR: tmp.dir,
    LANG: 'C.UTF-8',
    TUNNEL_API_BASE_URL: emulator.url,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_S3: s3Endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    ...exported.get(blockOf(c)),
  };
}

/** Fills in `<placeholder>`s (an output id, or one of userPlaceholders), the noted head and dates. */
function fillIn(c: DocCommand, text: string): string {
  const user = userPlaceholders();
  // A `${VAR:?message}` is the shell's own refusal; its message is left as written.
  const guarded = text.match(/\$\{\w+:\?[^}]*\}/g) ?? [];
  let out = text;
  guarded.forEach((g, i) => {
    out = out.replace(g, `\u0000${i}\u0000`);
  });
  out = out.replace(/<([^<>]+)>/g, (whole, name: string) => {
    const value = outputs[name] ?? user[name];
    if (value === undefined) throw new Error(`${where(c)}\n  unknown placeholder ${whole}`);
    return value;
  });
  guarded.forEach((g, i) => {
    out = out.replace(`\u0000${i}\u0000`, g);
  });
  return out.replace(NOTED_HEAD, world.head).replace(/YYYY-MM-DD/g, NOW.slice(0, 10));
}

/** A page's bucket and table names, made its own (`my-bucket` on two pages is two buckets). */
async function scopeStores(c: DocCommand, text: string): Promise<string> {
  const names: [string, string][] = [];
  const scoped = text
    .replace(/s3:\/\/([a-z0-9.-]+)/g, (_w, name: string) => {
      const own = `${slug(c.page)}-${name}`.slice(0, 63).replace(/[.-]+$/, '');
      names.push([name, own]);
      return `s3://${own}`;
    })
    .replace(/dynamodb:\/\/([A-Za-z0-9_.-]+)/g, (_w, name: string) => `dynamodb://${slug(c.page)}-${name}`);
  for (const [name, own] of names) await ensureBucket(own, holdsArchive(name));
  return scoped;
}

async function ensureBucket(bucket: string, withArchive: boolean): Promise<void> {
  try {
    await s3.client.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch {
    await s3.client.send(new CreateBucketCommand({ Bucket: bucket }));
  }
  if (withArchive) await uploadFolder(s3.client, world.pristine, { bucket });
}

/** Every file under `dir` into `bucket/prefix`, as `aws s3 sync` copies it, but those `keep` refuses. */

const recorded = (program: string): string[] | undefined => {
  const path = join(world.log, `${program}.argv`);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(0, -1) : undefined;
};
const clearRecorded = () => {
  for (const p of ['aws', 'cdk', 'npm']) writeFileSync(join(world.log, `${p}.argv`), '');
};

const show = (r: ShellResult) =>
  `exit ${r.code}\n--- stdout\n${r.stdout.slice(-1500)}\n--- stderr\n${r.stderr.slice(-1500)}`;

type Runner = (c: DocCommand) => Promise<string>;

/** `tunnel-archiver …`: run as written against the stand-ins, at the fixed clock. */
const runTunnelArchiver: Runner = async (c) => {
  const name = c.argv[1] ?? '';
  const command = COMMANDS[name];
  if (command === undefined) throw new Error(`${where(c)}\n  not a tunnel-archiver command: ${name}`);
  let text = await scopeStores(c, fillIn(c, c.text));
  const flags = COMMAND_FLAGS[name as keyof typeof COMMAND_FLAGS] as Record<string, unknown>;
  if ('now' in flags && !c.argv.includes('--now')) text += ` --now ${NOW}`;
  const narrowed = NARROWED.filter((n) => n.match(c, text));
  for (const n of narrowed) text += ` ${n.add}`;
  for (const file of c.argv.filter((a) => a in PAGE_FILES))
    writeFileSync(join(world.reader, file), pageFile(file));
  const env = shellEnv(c);
  const key = `${text}\n${JSON.stringify(exported.get(blockOf(c)) ?? {})}`;
  const same = already.get(key);
  if (same !== undefined) return `the same command in the same shell as ${same}`;
  already.set(key, `${c.page}:${c.line}`);
  if (name === 'emulator') {
    // It serves until stopped; port 0 so it never collides with a port in use on this machine.
    const r = await pasteUntil(text.replace(/--port \d+/, '--port 0'), /listening on http/, {
      cwd: world.reader,
      env,
    });
    expect(r.ready, `${where(c)}\n${show(r)}`).toBe(true);
    return 'served, then stopped';
  }
  // A read-only command on an S3 archive goes through a front that refuses every write.
  const readOnlyS3 = command.readsOnly === true && /--dest s3:\/\//.test(text) && !/--state /.test(text);
  if (readOnlyS3) env.AWS_ENDPOINT_URL_S3 = front.endpoint;
  const refusedBefore = front.refused.length;
  const r = await paste(text, { cwd: world.reader, env, input: `${TOKEN}\n` });
  const expected = EXPECTED_EXIT.find((e) => e.match.test(c.text));
  expect(r.code, `${where(c)}\n  ran: ${text}\n${show(r)}`).toBe(expected?.code ?? 0);
  if (expected !== undefined) expect(r.stdout, `${where(c)}: ${expected.why}`).toMatch(expected.shows);
  if (c.output !== undefined) expect(r.stdout, where(c)).toContain(c.output);
  if (name === 'token-hmac') expect(r.stdout, `${where(c)}: the token's HMAC`).toContain(tokenHmac(c, text));
  if (readOnlyS3)
    expect(front.refused.slice(refusedBefore), `${where(c)}: wrote through read-only credentials`).toEqual(
      [],
    );
  return [
    `exit ${r.code}`,
    ...(readOnlyS3 ? ['read-only credentials, no state table'] : []),
    ...narrowed.map((n) => `${n.add} (${n.why})`),
  ].join(', ');
};

/** The HMAC `token-hmac` prints for TOKEN: under the secret's SHA-256, or the keys folder's key. */
function tokenHmac(c: DocCommand, text: string): string {
  const key = text.includes('--token-key-secret')
    ? createHash('sha256').update(TOKEN_KEY_SECRET).digest()
    : readFileSync(join(cliKeysDir(world.archive), 'token-hmac.key'));
  if (!/--token-key-secret|--dest file:\/\/\.\/archive/.test(text))
    throw new Error(`${where(c)}\n  no check for this token-hmac`);
  return createHmac('sha256', key).update(TOKEN).digest('hex');
}

/** `export VAR=…`: a variable the configuration knows; later commands of the page see it. */
const runExport: Runner = async (c) => {
  const [, assignment = ''] = c.argv;
  const [name = '', value = ''] = assignment.split(/=(.*)/s);
  expect(
    SETTINGS.map((s) => s.env),
    `${where(c)}: ${name} is no variable the configuration reads`,
  ).toContain(name);
  const standIn = name === 'TUNNEL_API_KEY' && value === '...' ? EMULATOR_PAID_KEY : value;
  exported.set(blockOf(c), { ...exported.get(blockOf(c)), [name]: standIn });
  return `${name} set for the rest of the block`;
};

/** `npm …`: the script exists (npm itself is not run here). */
const runNpm: Runner = async (c) => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const [, verb = '', script] = c.argv;
  if (verb === 'ci') {
    expect(existsSync(join(ROOT, 'package-lock.json')), `${where(c)}: npm ci needs package-lock.json`).toBe(
      true,
    );
    return 'package-lock.json exists';
  }
  const name = verb === 'run' ? (script ?? '') : verb;
  if (!['start', 'test', 'run'].includes(verb))
    throw new Error(`${where(c)}\n  npm ${verb}: no runner for it`);
  expect(Object.keys(scripts), `${where(c)}: package.json has no script "${name}"`).toContain(name);
  return `script "${name}" exists`;
};

const synthesized = new Map<string, string>();
/** `cdk …`: a real subcommand; every `-c key=value` is a context option the stack reads and takes effect. */
const runCdk: Runner = async (c) => {
  clearRecorded();
  const r = await paste(c.text, { cwd: world.reader, env: shellEnv(c) });
  expect(r.code, `${where(c)}\n${show(r)}`).toBe(0);
  const [sub = '', ...args] = recorded('cdk') ?? [];
  expect(['bootstrap', 'deploy', 'destroy', 'synth', 'diff'], `${where(c)}: cdk ${sub}`).toContain(sub);
  const context: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c' || args[i] === '--context') {
      const [key = '', value = ''] = (args[++i] ?? '').split(/=(.*)/s);
      expect(SETTING_KEYS as string[], `${where(c)}: -c ${key} is no context option of the stack`).toContain(
        key,
      );
      context[key] = value;
    } else throw new Error(`${where(c)}\n  cdk ${sub}: no check for ${args[i]}`);
  }
  expect(JSON.parse(read('cdk.json')).app, `${where(c)}: cdk.json names the app`).toBeTruthy();
  if (Object.keys(context).length > 0) {
    const key = JSON.stringify(context);
    const json = synthesized.get(key) ?? JSON.stringify(synthApp({ context }).template.toJSON());
    synthesized.set(key, json);
    for (const value of Object.values(context))
      expect(json, `${where(c)}: the template synthesized with ${key} does not use ${value}`).toContain(
        value,
      );
  }
  return `cdk ${sub}${Object.keys(context).length ? `, context ${JSON.stringify(context)} in the template` : ''}`;
};

/** The stack's state table as the template declares it: its key and billing. */
function stateTable(): {
  AttributeDefinitions: unknown;
  KeySchema: unknown;
  BillingMode: unknown;
  Replicas?: { DeletionProtectionEnabled?: boolean; PointInTimeRecoverySpecification?: unknown }[];
} {
  const table = Object.entries(cfn.Resources).find(
    ([id, r]) =>
      r.Type.startsWith('AWS::DynamoDB::') && String(resolve({ Ref: id })) === outputs.StateTableName,
  );
  if (table === undefined) throw new Error('no state table in the template');
  return table[1].Properties as never;
}
/** `AttributeName=pk,KeyType=HASH` as the object CloudFormation writes. */
const shorthand = (s: string) => Object.fromEntries(s.split(',').map((kv) => kv.split('=')));

/** `aws …`: recorded, read as the AWS CLI reads it, every name it uses a real one. */
const runAws: Runner = async (c) => {
  const text = fillIn(c, c.text);
  // `${VAR:?export VAR=… first}`: the command itself tells the reader to export VAR.
  const told = Object.fromEntries(
    [...c.text.matchAll(/\$\{(\w+):\?export \1=/g)].map((m) => [m[1] as string, 'pk_live_example']),
  );
  clearRecorded();
  const r = await paste(text, { cwd: world.reader, env: { ...shellEnv(c), ...told } });
  expect(r.code, `${where(c)}\n${show(r)}`).toBe(0);
  const argv = recorded('aws') ?? [];
  let call: ReturnType<typeof parseAwsCall>;
  try {
    call = parseAwsCall(argv);
  } catch (error) {
    throw new Error(`${where(c)}\n  ${(error as Error).message}`);
  }
  // Each output the command names reaches it.
  for (const m of c.text.matchAll(/<(\w+)>/g)) {
    const value = outputs[m[1] as string];
    if (value !== undefined) expect(argv, `${where(c)}: ${m[0]}`).toContain(value);
  }
  for (const value of Object.values(told)) expect(argv, `${where(c)}: the exported key`).toContain(value);
  // A command the page says the stack prints is the stack's command.
  const printed = /\b(\w+Command)\b/.exec(`${c.comment} ${c.before.at(-1) ?? ''}`)?.[1];
  if (printed !== undefined && outputs[printed] !== undefined) {
    clearRecorded();
    await paste(outputs[printed], { cwd: world.reader, env: { ...shellEnv(c), ...told } });
    expect(argv, `${where(c)}: not the stack's ${printed}`).toEqual(recorded('aws'));
  }
  const one = (o: string) => call.options[o]?.[0] ?? '';
  if (call.command === 'dynamodb create-table') {
    const table = stateTable();
    expect([shorthand(one('--attribute-definitions'))], where(c)).toEqual(table.AttributeDefinitions);
    expect([shorthand(one('--key-schema'))], where(c)).toEqual(table.KeySchema);
    expect(one('--billing-mode'), where(c)).toBe(table.BillingMode);
    expect(
      '--deletion-protection-enabled' in call.options,
      `${where(c)}: deletion protection, as the stack's`,
    ).toBe(table.Replicas?.[0]?.DeletionProtectionEnabled === true);
  }
  if (call.command === 'dynamodb update-continuous-backups')
    expect(
      { PointInTimeRecoveryEnabled: one('--point-in-time-recovery-specification').endsWith('=true') },
      `${where(c)}: point-in-time recovery, as the stack's`,
    ).toEqual(stateTable().Replicas?.[0]?.PointInTimeRecoverySpecification);
  if (call.command === 'stepfunctions start-execution')
    expect(
      verifyJobIdSchema.safeParse((JSON.parse(one('--input')) as { jobId?: unknown }).jobId).success,
      `${where(c)}: the job id`,
    ).toBe(true);
  if (call.command === 'secretsmanager create-secret')
    expect(
      read(c.page.startsWith('docs/') ? c.page : 'README.md'),
      `${where(c)}: a secret the page's context names`,
    ).toContain(`"externalIdSecret": "${one('--name')}"`);
  if (call.command === 's3 sync') {
    // The copy the next commands read: made here, as the AWS CLI's sync makes it.
    const [from = '', to = ''] = call.positionals;
    const target = /^s3:\/\/([^/]+)\/?(.*)$/.exec(await scopeStores(c, to));
    if (target === null || from.startsWith('s3://'))
      throw new Error(`${where(c)}\n  no runner for this sync`);
    const excludes = (call.options['--exclude'] ?? []).map(
      (g) => new RegExp(`^${g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`),
    );
    const prefix = target[2] === '' || target[2]?.endsWith('/') ? (target[2] ?? '') : `${target[2]}/`;
    const n = await uploadFolder(
      s3.client,
      join(world.reader, from),
      { bucket: target[1] as string, prefix },
      (k) => !excludes.some((x) => x.test(k)),
    );
    expect(n, `${where(c)}: copied nothing`).toBeGreaterThan(0);
  }
  return `aws ${call.command}: options known, names real`;
};

/** Commands of other programs, each with the check its page implies. */
const OTHER_RUNNERS: { name: string; match: (c: DocCommand) => boolean; run: Runner }[] = [
  {
    name: 'the verifier with bash, jq and openssl',
    match: (c) => c.argv[0] === 'bash' && c.argv[1] === 'docs/verify-by-hand.sh',
    run: async (c) => {
      const r = await paste(c.text, { cwd: world.reader, env: shellEnv(c) });
      expect(r.code, `${where(c)}\n${show(r)}`).toBe(0);
      return 'exit 0';
    },
  },
  {
    name: 'curl against the emulator',
    match: (c) => c.argv[0] === 'curl',
    run: async (c) => {
      const text = c.text.replace(/http:\/\/127\.0\.0\.1:8080/g, emulator.url);
      const r = await paste(`${text} --fail --silent --show-error`, { cwd: world.reader, env: shellEnv(c) });
      expect(r.code, `${where(c)}\n${show(r)}`).toBe(0);
      const page = JSON.parse(r.stdout) as { content?: unknown[]; size?: number; totalElements?: number };
      expect(Array.isArray(page.content), where(c)).toBe(true);
      expect({ size: page.size, total: typeof page.totalElements }, where(c)).toEqual({
        size: 10,
        total: 'number',
      });
      return 'HTTP 200, a page of the documented shape';
    },
  },
  {
    name: 'a shell example with its output',
    match: (c) => c.argv[0] === 'printf' && c.output !== undefined && c.before.length === 0,
    run: async (c) => {
      const r = await paste(c.text, { cwd: world.reader, env: shellEnv(c) });
      expect(r.code, `${where(c)}\n${show(r)}`).toBe(0);
      expect(r.stdout.trim(), where(c)).toBe(c.output);
      return 'prints what the page shows';
    },
  },
  {
    name: 'a digest-format recipe step, in the archive folder',
    match: (c) => c.page === 'docs/digest-format.md',
    run: async (c) => {
      const script = ['set -e', ...c.before, c.text].join('\n');
      const r = await paste(script, {
        cwd: world.archive,
        env: { ...shellEnv(c), KEYS_DIR: cliKeysDir(world.archive) },
      });
      expect(r.code, `${where(c)}\n${show(r)}`).toBe(0);
      if (c.argv[0] === 'openssl' && c.argv[1] === 'pkeyutl')
        expect(r.stdout, where(c)).toContain('Signature Verified Successfully');
      if (/token-key-check/.test(c.text)) {
        const check = JSON.parse(readFileSync(join(world.archive, 'digests/key-check.json'), 'utf8')) as {
          tokenKeyCheck: string;
        };
        expect(r.stdout.trim(), where(c)).toBe(check.tokenKeyCheck);
      }
      return 'exit 0';
    },
  },
  {
    name: "moving an archive's keys folder to the per-user place",
    match: (c) => ['mkdir', 'mv'].includes(c.argv[0] ?? '') && c.text.includes('tunnel-archiver/keys'),
    run: async (c) => {
      const dir = join(world.reader, 'DIR');
      mkdirSync(join(dir, '.keys'), { recursive: true });
      writeFileSync(join(dir, '.keys', 'token-hmac.key'), new Uint8Array(32));
      const env = shellEnv(c);
      const r = await paste(fillIn(c, c.text), { cwd: world.reader, env });
      expect(r.code, `${where(c)}\n${show(r)}`).toBe(0);
      if (c.argv[0] === 'mv') {
        const name = archiveKeysName(dir);
        expect(keysInArchiveWarning(dir, { HOME: env.HOME }), where(c)).toContain(name);
        // With XDG_CONFIG_HOME unset, as the page's ~/.config assumes.
        expect(existsSync(join(userKeysDir(dir, { HOME: env.HOME }), 'token-hmac.key')), where(c)).toBe(true);
      }
      return 'exit 0';
    },
  },
];

/** The runner of a command, or undefined when none knows it. */
function runnerFor(c: DocCommand): Runner | undefined {
  switch (c.kind) {
    case 'tunnel-archiver':
      return runTunnelArchiver;
    case 'export':
      return runExport;
    case 'npm':
      return runNpm;
    case 'cdk':
      return runCdk;
    case 'aws':
      return runAws;
    default:
      return OTHER_RUNNERS.find((r) => r.match(c))?.run;
  }
}

beforeAll(async () => {
  world.reader = join(tmp.dir, 'project');
  world.archive = join(world.reader, 'archive');
  world.log = join(tmp.dir, 'argv');
  mkdirSync(world.reader, { recursive: true });
  // Commands run "from the project folder": its docs are there.
  symlinkSync(join(ROOT, 'docs'), join(world.reader, 'docs'));
  world.bin = shimPrograms(tmp.dir, world.log);
  [s3, dynamo, emulator] = await Promise.all([
    startS3rver('doc-commands'),
    startDynalite(),
    startEmulator({ clock: fixedClock(NOW), detectionDemo: true, paidKeys: [EMULATOR_PAID_KEY] }),
  ]);
  front = await startReadOnlyS3Front(s3);
  secrets = await startSecretsStub({ [outputs.TokenKeySecretArn as string]: TOKEN_KEY_SECRET });
  // The archive `npm start` makes (the script's own command, at the fixed clock).
  const script = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
  const start = await paste(
    `${script.replace('bin/tunnel-archiver.js', `"${join(ROOT, 'bin/tunnel-archiver.js')}"`)} --quiet --now ${NOW}`,
    {
      cwd: world.reader,
      env: shellEnv(docCommand('README.md', 26, 'npm start')),
    },
  );
  if (start.code !== 0) throw new Error(`npm start failed\n${show(start)}`);
  world.startOutput = start.stdout;
  world.head = /chain head:\s+(\d+:[0-9a-f]{64})/.exec(start.stdout)?.[1] ?? '';
  expect(world.head, start.stdout).not.toBe('');
  world.pristine = join(tmp.dir, 'pristine');
  cpSync(world.archive, world.pristine, {
    recursive: true,
    filter: (p) => !/\/(\.state|\.keys|_staging)(\/|$)|report\.html$/.test(p),
  });
}, 300_000);

afterAll(async () => {
  await Promise.allSettled([
    front?.close(),
    s3?.close(),
    dynamo?.close(),
    emulator?.close(),
    secrets?.close(),
  ]);
  console.log(`documented commands (${ran.length}):\n${ran.join('\n')}`);
});

describe('every documented command', () => {
  it('has a runner, or an exemption that says why', () => {
    const unknown = [...documented, ...stackCommands]
      .filter((c) => !EXEMPT.some((e) => e.match(c)) && runnerFor(c) === undefined)
      .map(where);
    expect(unknown, 'commands no runner knows (add one, or fix the page)').toEqual([]);
  });

  it.each([...documented, ...stackCommands].map((c) => ({ c, title: where(c) })))(
    'works as written: $title',
    async ({ c }) => {
      const exempt = EXEMPT.find((e) => e.match(c));
      if (exempt !== undefined) {
        ran.push(`EXEMPT  ${where(c)}  (${exempt.why})`);
        return;
      }
      const runner = runnerFor(c);
      if (runner === undefined) throw new Error(`${where(c)}\n  no runner for this command`);
      const what = await runner(c);
      ran.push(`ran     ${where(c)}  → ${what}`);
    },
    180_000,
  );

  it('`npm start` prints commands that run as printed', async () => {
    const printed = world.startOutput
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('npx tunnel-archiver '))
      .map((l) => docCommand('npm start output', 0, splitComment(l)[0]));
    expect(printed.map((c) => c.argv[1])).toEqual(expect.arrayContaining(['query', 'report', 'detect']));
    for (const c of printed) ran.push(`ran     ${where(c)}  → ${await runTunnelArchiver(c)}`);
  });
});

/**
 * What is wrong with a command a page writes in its prose, read without running it: a subcommand, a flag,
 * a script or a context option that does not exist. `<placeholders>` and `--flag=value` are read as such.
 */
function inlineProblems(c: InlineCommand, emulatorHelp: string): string[] {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const flagsOf = (words: string[]) =>
    words.filter((w) => /^--[a-z]/.test(w)).map((w) => w.replace(/=.*$/, ''));
  const [program, sub = '', ...rest] = c.argv;
  if (program === 'tunnel-archiver') {
    if (sub.startsWith('<') || sub === '--help') return [];
    const flags = COMMAND_FLAGS[sub as keyof typeof COMMAND_FLAGS] as Record<string, unknown> | undefined;
    if (flags === undefined) return [`no command ${sub}`];
    if (sub === 'emulator')
      return flagsOf(rest)
        .filter((f) => f !== '--help' && !emulatorHelp.includes(`  ${f} `))
        .map((f) => `the emulator takes no ${f}`);
    return flagsOf(rest)
      .filter((f) => !(f.slice(2) in flags))
      .map((f) => `${sub} takes no ${f}`);
  }
  if (program === 'npm') {
    if (['ci', 'test', 'start', 'update', 'install'].includes(sub))
      return sub === 'test' || sub === 'start' ? (sub in scripts ? [] : [`no script ${sub}`]) : [];
    if (sub === 'run') return (rest[0] ?? '') in scripts ? [] : [`no script ${rest[0]}`];
    return [`npm ${sub}: no check for it`];
  }
  if (program === 'cdk') {
    if (!['bootstrap', 'deploy', 'destroy', 'synth', 'diff'].includes(sub)) return [`cdk ${sub}`];
    return rest
      .flatMap((w, i) => (rest[i - 1] === '-c' ? [w.split('=')[0] ?? ''] : []))
      .filter((k) => !(SETTING_KEYS as string[]).includes(k))
      .map((k) => `-c ${k} is no context option of the stack`);
  }
  if (program === 'aws') {
    try {
      parseAwsCall(c.argv.slice(1), { fragment: true });
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  }
  return [`no check for ${program}`];
}

describe('every command the docs write in their prose', () => {
  it('names commands, flags, scripts and context options that exist', async () => {
    const help = await paste(`tunnel-archiver emulator --help`, {
      cwd: world.reader,
      env: shellEnv(documented[0] as DocCommand),
    });
    expect(help.stdout).toContain('--port');
    // A command its sentence says is refused is run below instead.
    const refused = (c: InlineCommand) => c.prints?.startsWith('error') === true;
    const problems = inline
      .filter((c) => !refused(c))
      .flatMap((c) => inlineProblems(c, help.stdout).map((p) => `${c.page}:${c.line}: ${c.text}: ${p}`));
    expect(problems).toEqual([]);
    ran.push(`checked ${inline.length} inline commands (flags, scripts, context options)`);
  });

  it.each(
    inline.filter((c) => c.prints !== undefined).map((c) => ({ c, title: `${c.page}:${c.line}: ${c.text}` })),
  )('prints what its sentence says: $title', async ({ c }) => {
    const r = await paste(c.text, { cwd: world.reader, env: shellEnv(docCommand(c.page, c.line, c.text)) });
    const said = c.prints as string;
    expect((r.stdout + r.stderr).replace(/\s+/g, ' '), `${c.page}:${c.line}: ${c.text}`).toContain(said);
    expect(r.code === 0, `${c.page}:${c.line}: exit ${r.code}`).toBe(!said.startsWith('error'));
    ran.push(`ran     ${c.page}:${c.line}: ${c.text}  → exit ${r.code}, prints what the page says`);
  });
});
