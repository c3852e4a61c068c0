import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { COMMAND_FLAGS, type CommandName } from '../../lib/cli/commandFlags.ts';
import { EMULATOR_FLAGS } from '../../lib/cli/emulatorCommand.ts';
import { main } from '../../lib/cli/main.ts';
import { captureIo } from '../cli/cliKit.ts';
import { tableRowsFrom } from './markdownTable.ts';

const ROOT = new URL('../../', import.meta.url);
const read = (rel: string) => readFileSync(new URL(rel, ROOT), 'utf8');

/** README.md and every Markdown page under docs/ (generated rule pages included). */
function pages(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(new URL(dir, ROOT))) {
      const rel = `${dir}${name}`;
      if (statSync(new URL(rel, ROOT)).isDirectory()) walk(`${rel}/`);
      else if (name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs/');
  return out;
}

/** The rows of the first Markdown table after `## title`, as cells (header and separator dropped). */
function tableUnder(page: string, title: string): string[][] {
  const text = read(page);
  const at = text.indexOf(`\n## ${title}\n`);
  if (at < 0) throw new Error(`${page} has no section '${title}'`);
  return tableRowsFrom(text, at);
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

/** What docs/cli.md documents: "command --flag" → meaning. */
function documentedFlags(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [flagCell = '', commandsCell = '', meaning = ''] of tableUnder(
    'docs/cli.md',
    'Flags of each command',
  )) {
    const flag = ticked(flagCell)[0]?.replace(/^--/, '') ?? flagCell;
    for (const command of ticked(commandsCell)) {
      const key = `${command} --${flag}`;
      expect(out.has(key), `docs/cli.md lists ${key} twice`).toBe(false);
      out.set(key, meaning);
    }
  }
  return out;
}

/** What the CLI takes: "command --flag" → its help line. */
function actualFlags(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [command, flags] of Object.entries(COMMAND_FLAGS))
    for (const [flag, spec] of Object.entries(flags as Record<string, { help: string }>))
      out.set(`${command} --${flag}`, spec.help);
  return out;
}

/** The one command line docs/cli.md shows to be refused (checked against the CLI below). */
const REFUSAL = /`tunnel-archiver (verify --days [^`]+)` prints `([^`]+)`/;

/** Flags the docs may name that belong to Node or to the CLI as a whole, not to a command. */
const OTHER_FLAGS = new Set(['version', 'max-semi-space-size', 'enable-source-maps', 'heap-growing-percent']);

/** Flags of other tools the docs run, with the tool: `npm run bench -- --only`, `cdk bootstrap`. */
const OTHER_TOOL_FLAGS: Record<string, string> = {
  only: 'npm run bench',
  'cloudformation-execution-policies': 'cdk bootstrap',
  // The Node flags the engine functions' exec wrapper adds (infra/bundling/singleThreadedNode.sh).
  'single-threaded-gc': 'node',
};

/** Variables the docs may name that the AWS SDK or Node read, not the archiver. */
const OTHER_VARIABLES = new Set([
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED',
  'NODE_OPTIONS',
  // The XDG Base Directory variables that place a local archive's keys folder (lib/archive/keys/localKeysLocation.ts).
  'XDG_CONFIG_HOME',
  'HOME',
]);

/** Top-level folders and files of the repository: a backticked path under one of them must exist. */
const REPO_ROOTS = /^(?:lib|test|bench|functions|infra|bin|tools|docs|detections|devkit)\//;
/** Where a file named by its bare name (`walkDay.ts`) is looked for: it must be there exactly once. */
const SOURCE_DIRS = ['lib/', 'functions/', 'infra/', 'bin/', 'bench/', 'test/', 'tools/', 'devkit/'];
/** A path with a placeholder names a pattern, not a file. */
const PLACEHOLDER = /[<>*{}…$]|\.\.\.|YYYY|DAY|<ID>/;

describe('docs/cli.md and the per-command flag table', () => {
  it('documents every flag each command takes, and no flag a command does not take', () => {
    const documented = documentedFlags();
    const actual = actualFlags();
    const extra = [...documented.keys()].filter((k) => !actual.has(k));
    const missing = [...actual.keys()].filter((k) => !documented.has(k));
    expect(extra, 'documented in docs/cli.md, but the command does not take it').toEqual([]);
    expect(missing, 'taken by the command, but not in docs/cli.md').toEqual([]);
    for (const [key, help] of actual) expect(documented.get(key), key).toBe(help);
  });

  it('names in every command line of README.md and docs/ only flags that command takes', () => {
    let lines = 0;
    const refused = `tunnel-archiver ${REFUSAL.exec(read('docs/cli.md'))?.[1]}`;
    for (const page of pages()) {
      const text = read(page);
      // Each line of a code block, and each inline code span, that runs a command.
      const blocks = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? '').split('\n'));
      const spans = [...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');
      for (const line of [...blocks, ...spans]) {
        const call = /tunnel-archiver\s+([a-z]+)\b(.*)/.exec(line.replace(/\s#\s.*$/, ''));
        if (!call || line === refused) continue;
        const [, command = '', rest = ''] = call;
        if (!(command in COMMAND_FLAGS)) continue; // `tunnel-archiver <command>` in prose
        lines++;
        const takes = command === 'emulator' ? EMULATOR_FLAGS : COMMAND_FLAGS[command as CommandName];
        for (const [, flag = ''] of rest.replace(/"[^"]*"|'[^']*'/g, '').matchAll(/(?:^|\s)--([a-z0-9-]+)/g))
          expect(
            flag in takes,
            `${page}: \`${line.trim()}\` passes --${flag}, which ${command} does not take`,
          ).toBe(true);
      }
    }
    expect(lines).toBeGreaterThan(20);
  });

  it('names in docs/cli.md only flags that exist', () => {
    const known = new Set([
      ...Object.values(COMMAND_FLAGS).flatMap((f) => Object.keys(f)),
      ...Object.keys(EMULATOR_FLAGS),
      ...OTHER_FLAGS,
    ]);
    const named = [...read('docs/cli.md').matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map(
      (m) => m[1] as string,
    );
    expect(named.length).toBeGreaterThan(30);
    expect(
      named.filter((f) => !known.has(f)),
      'flags docs/cli.md names that no command takes',
    ).toEqual([]);
  });

  it('names in the prose of README.md and docs/ (a `--flag` code span) only flags the CLI takes, or another tool the page runs', () => {
    const known = new Set([
      ...Object.values(COMMAND_FLAGS).flatMap((f) => Object.keys(f)),
      ...Object.keys(EMULATOR_FLAGS),
      ...OTHER_FLAGS,
      ...Object.keys(OTHER_TOOL_FLAGS),
    ]);
    const wrong: string[] = [];
    let named = 0;
    for (const page of pages())
      for (const [, flag = ''] of read(page)
        .replace(/```[\s\S]*?```/g, '')
        .matchAll(/`--([a-z][a-z0-9-]*)[^`]*`/g)) {
        named++;
        if (!known.has(flag)) wrong.push(`${page}: --${flag}`);
      }
    expect(named).toBeGreaterThan(30);
    expect(wrong, 'flags no tunnel-archiver command takes').toEqual([]);
  });

  it('shows the refusal of a flag a command does not take as the CLI prints it', async () => {
    const shown = REFUSAL.exec(read('docs/cli.md').replace(/\n/g, ' '));
    expect(shown, 'docs/cli.md shows a refused flag').not.toBeNull();
    const { io, err } = captureIo({ ARCHIVE_DEST: 'file:///nonexistent-ta-docs' });
    expect(await main((shown?.[1] ?? '').split(' '), io)).toBe(2);
    expect(err().trim()).toBe(shown?.[2]);
  });
});

describe('docs/configuration.md and the config spec', () => {
  it('lists every variable of the spec, and only those', () => {
    const text = read('docs/configuration.md');
    const table = text.split('\n').filter((l) => /^\| `[A-Z0-9_]+` /.test(l));
    const documented = table.map((l) => ticked(l.split('|')[1] ?? '')[0]);
    const spec: string[] = SETTINGS.map((s) => s.env);
    expect(
      documented.filter((v) => !spec.includes(v as string)),
      'in docs/configuration.md, not in the spec',
    ).toEqual([]);
    expect(
      spec.filter((v) => !documented.includes(v)),
      'in the spec, not in docs/configuration.md',
    ).toEqual([]);
  });

  it('names in docs/cli.md and docs/configuration.md only variables the spec holds (or the SDK reads)', () => {
    const spec = new Set<string>(SETTINGS.map((s) => s.env));
    for (const page of ['docs/cli.md', 'docs/configuration.md']) {
      const named = [...read(page).matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)].map((m) => m[1] as string);
      expect(
        named.filter((v) => !spec.has(v) && !OTHER_VARIABLES.has(v)),
        `${page} names a variable nothing reads`,
      ).toEqual([]);
    }
  });

  it('holds every variable lib/ and functions/ read', () => {
    const spec = new Set<string>(SETTINGS.map((s) => s.env));
    const read_: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(new URL(dir, ROOT))) {
        const rel = `${dir}${name}`;
        if (statSync(new URL(rel, ROOT)).isDirectory()) walk(`${rel}/`);
        else if (name.endsWith('.ts'))
          for (const v of variablesRead(read(rel), rel)) read_.push(`${rel}: ${v}`);
      }
    };
    walk('lib/');
    walk('functions/');
    expect(read_.length).toBeGreaterThan(3);
    expect(
      read_.filter(
        (r) => !spec.has(r.split(': ')[1] as string) && !OTHER_VARIABLES.has(r.split(': ')[1] as string),
      ),
      'read by the code, missing from lib/archive/config/configSpec.ts',
    ).toEqual([]);
  });

  it.each([
    ['a property', 'const a = process.env.SOME_VAR;', ['SOME_VAR']],
    ['an optional property', 'f(env?.SOME_VAR)', ['SOME_VAR']],
    ['an index', "env['SOME_VAR'] ?? 1", ['SOME_VAR']],
    ['destructuring', 'const { SOME_VAR, OTHER_VAR: o } = process.env;', ['SOME_VAR', 'OTHER_VAR']],
    [
      'the keys of a schema the environment is parsed with',
      'const s = z.object({ SOME_VAR: z.string() });\nexport const c = s.safeParse(env);',
      ['SOME_VAR'],
    ],
    ['a constant name', "const NAME = 'SOME_VAR';\nconst v = env[NAME];", ['SOME_VAR']],
    ['a computed name', 'const v = env[name];', ['env[name]']],
  ])('finds a variable read through %s', (_, source, found) => {
    expect(variablesRead(source, 'lib/x/y.ts')).toEqual(found);
  });
});

/**
 * The variables a source file reads: `env.X`, `env?.X`, `env['X']` (process.env too), `{ X } = env`,
 * and the UPPER_SNAKE keys of a file that parses the environment whole (`schema.parse(env)`). A read by a
 * computed name (`env[name]`) is returned as written: only `loadConfig`, which reads the spec's names, may
 * make one.
 */
function variablesRead(source: string, rel: string): string[] {
  const out = [
    ...[...source.matchAll(/\benv\??\.([A-Z][A-Z0-9_]+)|\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g)].map(
      (m) => (m[1] ?? m[2]) as string,
    ),
  ];
  for (const [, names = ''] of source.matchAll(/\{([^{}]*)\}\s*=\s*(?:process\.)?env\b/g))
    out.push(...[...names.matchAll(/\b([A-Z][A-Z0-9_]+)\b(?!\s*\})?/g)].map((m) => m[1] as string));
  if (/\.(?:safe)?[pP]arse(?:Async)?\(\s*(?:process\.)?env\b/.test(source))
    out.push(...[...source.matchAll(/\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\s*:/g)].map((m) => m[1] as string));
  // A computed name: the value of a constant of the same file, else the read as written.
  const constants = new Map(
    [...source.matchAll(/\bconst\s+(\w+)\s*=\s*['"]([A-Z][A-Z0-9_]+)['"]/g)].map((m) => [m[1], m[2]]),
  );
  if (rel !== 'lib/archive/config/loadConfig.ts')
    for (const [read, name = ''] of source.matchAll(/\benv\[(?!['"])([^\]]*)\]/g))
      out.push(constants.get(name.trim()) ?? read);
  return [...new Set(out)];
}

describe('paths and links in README.md and docs/', () => {
  /** GitHub's anchor of a heading. */
  const slug = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^a-z0-9 _-]/g, '')
      .replace(/ /g, '-');

  it('links only to files (and headings) that exist', () => {
    let links = 0;
    for (const page of pages()) {
      const base = new URL(page, ROOT);
      for (const [, target = '', anchor] of read(page).matchAll(/\]\(([^)#\s]*)(?:#([^)\s]*))?\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        links++;
        const file = target === '' ? base : new URL(target, base);
        expect(existsSync(file), `${page} links to ${target}`).toBe(true);
        if (anchor && file.pathname.endsWith('.md') && existsSync(file)) {
          const headings = [...readFileSync(file, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) =>
            slug(m[1] ?? ''),
          );
          expect(headings, `${page} links to ${target}#${anchor}`).toContain(anchor);
        }
      }
    }
    expect(links).toBeGreaterThan(20);
  });

  it('names only repository paths that exist', () => {
    let paths = 0;
    for (const page of pages()) {
      for (const [, path = ''] of read(page).matchAll(/`([^`\s]+)`/g)) {
        if (!REPO_ROOTS.test(path) || PLACEHOLDER.test(path)) continue;
        paths++;
        const file = path.replace(/[),.:;]+$/, '').replace(/:\d+$/, '');
        expect(existsSync(new URL(file, ROOT)), `${page} names ${path}`).toBe(true);
      }
    }
    expect(paths).toBeGreaterThan(20);
  });

  it('names by a bare file name only a source file that exists once (under lib/, functions/, infra/, bin/, bench/, test/, tools/, devkit/)', () => {
    const sources = new Map<string, string[]>();
    const walk = (dir: string) => {
      if (!existsSync(new URL(dir, ROOT))) return;
      for (const name of readdirSync(new URL(dir, ROOT))) {
        const rel = `${dir}${name}`;
        if (name === 'node_modules' || name === 'cdk.out') continue;
        if (statSync(new URL(rel, ROOT)).isDirectory()) walk(`${rel}/`);
        else sources.set(name, [...(sources.get(name) ?? []), rel]);
      }
    };
    for (const dir of SOURCE_DIRS) walk(dir);
    let names = 0;
    const wrong: string[] = [];
    for (const page of pages())
      for (const [, name = ''] of read(page).matchAll(/`([\w.-]+\.(?:ts|js|mjs|cjs|sh))`/g)) {
        names++;
        const found = sources.get(name) ?? [];
        if (found.length !== 1)
          wrong.push(`${page} names \`${name}\`: ${found.length === 0 ? 'no such file' : found.join(', ')}`);
      }
    expect(names).toBeGreaterThan(5);
    expect(wrong, 'a bare file name must match exactly one file').toEqual([]);
  });

  it('names in backticks only identifiers the code holds (a camelCase name: a function, a field, a construct)', () => {
    const identifiers = new Set<string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(new URL(dir, ROOT))) {
        const rel = `${dir}${name}`;
        if (name === 'node_modules' || name === 'cdk.out') continue;
        if (statSync(new URL(rel, ROOT)).isDirectory()) walk(`${rel}/`);
        else if (/\.(?:ts|js|mjs|cjs|json|yml|sql)$/.test(name))
          for (const [id] of read(rel).matchAll(/[A-Za-z_$][\w$]*/g)) identifiers.add(id);
      }
    };
    for (const dir of [...SOURCE_DIRS, 'detections/']) walk(dir);
    for (const file of ['cdk.json', 'package.json'])
      for (const [id] of read(file).matchAll(/[A-Za-z_$][\w$]*/g)) identifiers.add(id);
    let names = 0;
    const missing: string[] = [];
    for (const page of pages())
      for (const [, id = ''] of read(page).matchAll(/`([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)`/g)) {
        names++;
        if (!identifiers.has(id)) missing.push(`${page}: \`${id}\``);
      }
    expect(names).toBeGreaterThan(50);
    expect(missing, 'names the code does not hold (renamed or removed?)').toEqual([]);
  });

  it("reaches every page of docs/ from the README's table: listed there, or linked from a page that is", () => {
    const table = tableUnder('README.md', 'Documentation').map((r) => /\]\(([^)]+)\)/.exec(r[0] ?? '')?.[1]);
    // Follows the relative Markdown links of each page reached (docs/detections.md links each rule's page).
    const reached = new Set<string>();
    const queue = table.filter((t): t is string => t !== undefined);
    while (queue.length > 0) {
      const page = queue.shift() as string;
      if (reached.has(page) || !existsSync(new URL(page, ROOT))) continue;
      reached.add(page);
      for (const m of read(page).matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)) {
        const target = new URL(m[1] as string, new URL(page, ROOT));
        if (target.href.startsWith(ROOT.href)) queue.push(target.href.slice(ROOT.href.length));
      }
    }
    const docs = pages().filter((p) => p.startsWith('docs/'));
    expect(docs.filter((d) => d.startsWith('docs/detections/')).length).toBeGreaterThan(5);
    expect(
      docs.filter((d) => !reached.has(d)),
      'pages the README table does not reach',
    ).toEqual([]);
  });
});
