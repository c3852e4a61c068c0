import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DETECT_METRIC } from '../../functions/shared/detectTelemetry.ts';
import { METRIC } from '../../functions/shared/telemetryNames.ts';
import { SNAPSHOT_METRIC } from '../../functions/snapshot-active/snapshotTelemetry.ts';
import { SETTING_KEYS } from '../../infra/stackSettings.ts';
import { FINDING_PK_PREFIX } from '../../lib/analytics/detect/versionedFindingLedger.ts';
import { activeStateSchema } from '../../lib/archive/active/activeState.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { archiveMetaSchema } from '../../lib/archive/state/archiveMeta.ts';
import { dayStateSchema } from '../../lib/archive/state/dayState.ts';
import { leaseSchema } from '../../lib/archive/state/lease.ts';
import { LEASE_PK } from '../../lib/archive/state/leaseConcern.ts';
import { ACTIVE_PK } from '../../lib/archive/state/liveStateConcern.ts';
import { manifestFileSchema, partitionManifestSchema } from '../../lib/archive/state/partitionManifest.ts';
import { DAY_PREFIX, META_PK, PART_PREFIX } from '../../lib/archive/state/versionedConcerns.ts';
import { COMMAND_FLAGS } from '../../lib/cli/commandFlags.ts';
import { EMULATOR_FLAGS } from '../../lib/cli/emulatorCommand.ts';

const ROOT = new URL('../../', import.meta.url);
const read = (rel: string) => readFileSync(new URL(rel, ROOT), 'utf8');
const GLOSSARY = 'docs/glossary.md';

/** What a **Where:** line may name, each value in backticks after its kind. */
const KINDS = ['file', 'flag', 'context', 'variable', 'state', 'prefix', 'metric'] as const;
type Kind = (typeof KINDS)[number];

interface Entry {
  term: string;
  where: { kind: Kind; value: string }[];
  /** Code spans of the Where line that no kind names (each must have one). */
  untyped: string[];
}

/** The glossary's entries: each `### term` heading, with the kinds and values of its **Where:** line. */
function glossaryEntries(text: string): Entry[] {
  return text
    .split(/^### /m)
    .slice(1)
    .map((block) => {
      const term = (block.split('\n')[0] ?? '').trim();
      const line = /^\*\*Where:\*\*(.*)$/m.exec(block)?.[1] ?? '';
      const where = [...line.matchAll(new RegExp(`\\b(${KINDS.join('|')}) \`([^\`]+)\``, 'g'))].map((m) => ({
        kind: m[1] as Kind,
        value: m[2] as string,
      }));
      const spans = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
      return { term, where, untyped: spans.filter((s) => !where.some((w) => w.value === s)) };
    });
}

/** The fields each state item holds, by the schema it is read with; `FINDING#` items are opaque. */
const STATE_ITEMS: { key: RegExp; fields: readonly string[] }[] = [
  { key: new RegExp(`^${LEASE_PK}$`), fields: Object.keys(leaseSchema.shape) },
  { key: new RegExp(`^${META_PK}$`), fields: Object.keys(archiveMetaSchema.shape) },
  { key: new RegExp(`^${ACTIVE_PK}$`), fields: Object.keys(activeStateSchema.shape) },
  { key: new RegExp(`^${DAY_PREFIX}<day>$`), fields: Object.keys(dayStateSchema.shape) },
  {
    key: new RegExp(`^${PART_PREFIX}<dt>$`),
    fields: [...Object.keys(partitionManifestSchema.shape), ...Object.keys(manifestFileSchema.shape)],
  },
  { key: new RegExp(`^${FINDING_PK_PREFIX}…$`), fields: [] },
];

/** Whether `value` (`ITEM` or `ITEM.field`) names a state item the state store keeps, and a field it holds. */
function stateItemExists(value: string): boolean {
  const [item = '', field] = value.split('.');
  const known = STATE_ITEMS.find((s) => s.key.test(item));
  return known !== undefined && (field === undefined || known.fields.includes(field));
}

const FLAGS = new Set([
  ...Object.values(COMMAND_FLAGS).flatMap((f) => Object.keys(f)),
  ...Object.keys(EMULATOR_FLAGS),
]);
const PREFIXES = new Set(Object.values(archiveKeys).filter((v): v is string => typeof v === 'string'));
const METRICS = new Set<string>([
  ...Object.values(METRIC),
  ...Object.values(SNAPSHOT_METRIC),
  ...Object.values(DETECT_METRIC),
]);

/** Whether the thing a **Where:** item names exists: on disk, in the CLI's flags, the stack's context, ... */
const EXISTS: Record<Kind, (value: string) => boolean> = {
  file: (v) => existsSync(new URL(v, ROOT)),
  flag: (v) => v.startsWith('--') && FLAGS.has(v.slice(2)),
  context: (v) => (SETTING_KEYS as readonly string[]).includes(v),
  variable: (v) => SETTINGS.some((s) => s.env === v),
  state: stateItemExists,
  prefix: (v) => PREFIXES.has(v),
  metric: (v) => METRICS.has(v),
};

/** Where each kind is looked for, as the failure message says it. */
const LOOKED_IN: Record<Kind, string> = {
  file: 'no such file in the repository',
  flag: 'no command takes it (lib/cli/commandFlags.ts, lib/cli/emulatorCommand.ts)',
  context: 'not a context key the stack reads (infra/stackSettings.ts)',
  variable: 'not in the config spec (lib/archive/config/configSpec.ts)',
  state: 'no such state item or field (the item schemas beside lib/archive/state/statePorts.ts)',
  prefix: 'not an archive prefix (lib/archive/commit/archiveKeys.ts)',
  metric: 'no function emits it (functions/**/…Telemetry.ts)',
};

/** What is wrong with the entries: a word that names no file, a value with no kind, a thing that does not exist. */
function problems(entries: Entry[]): string[] {
  const wrong: string[] = [];
  for (const { term, where, untyped } of entries) {
    if (!where.some((w) => w.kind === 'file')) wrong.push(`${term}: names no file`);
    for (const span of untyped) wrong.push(`${term}: \`${span}\` has no kind (${KINDS.join(', ')})`);
    for (const { kind, value } of where)
      if (!EXISTS[kind](value)) wrong.push(`${term}: ${kind} \`${value}\`: ${LOOKED_IN[kind]}`);
  }
  return wrong;
}

/** The word's forms on a page: each of its words, inflected (`day at risk` finds `days at risk`). */
const usage = (term: string) =>
  new RegExp(
    term
      .split(/[\s-]+/)
      .map((w) => `\\b${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\w*`)
      .join('[\\s-]+'),
    'i',
  );

/** README.md and the pages of docs/ other than the glossary (the generated rule pages left out). */
const OTHER_PAGES = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md') && `docs/${f}` !== GLOSSARY)
    .map((f) => `docs/${f}`),
];

const WORDS = [
  'sealed',
  'pass',
  'lease',
  'fence',
  'noted files',
  'reconciliation',
  'walk',
  'range',
  'fan-out',
  'digest',
  'chain head',
  'staging',
  'publish',
  'quarantine',
  'shortfall',
  'window',
  'day at risk',
  'snapshot',
  'finding',
  'incident',
  'rotation',
];

describe('docs/glossary.md', () => {
  const entries = glossaryEntries(read(GLOSSARY));

  it('defines each of the project’s own words, once', () => {
    const terms = entries.map((e) => e.term);
    expect(
      WORDS.filter((w) => !terms.includes(w)),
      'words the glossary does not define',
    ).toEqual([]);
    expect(terms.filter((t, i) => terms.indexOf(t) !== i)).toEqual([]);
  });

  it('names for each word where it lives, and each thing it names exists', () => {
    expect(entries.length).toBeGreaterThanOrEqual(WORDS.length);
    expect(problems(entries), 'docs/glossary.md names what does not exist').toEqual([]);
  });

  it('defines only words another page uses', () => {
    const text = OTHER_PAGES.map(read).join('\n');
    expect(
      entries.filter((e) => !usage(e.term).test(text)).map((e) => e.term),
      'defined in the glossary, used on no other page',
    ).toEqual([]);
  });

  it('is linked from the README and from each main page', () => {
    for (const page of [
      'README.md',
      'docs/design.md',
      'docs/integrity.md',
      'docs/operations.md',
      'docs/fanout.md',
      'docs/cli.md',
    ])
      expect(read(page), page).toMatch(/\]\((?:docs\/)?glossary\.md(?:#[^)]*)?\)/);
  });

  it.each([
    ['a file that exists', 'file `lib/archive/days/sealRule.ts`', []],
    [
      'a file that does not',
      'file `lib/archive/days/sealDay.ts`',
      ['x: file `lib/archive/days/sealDay.ts`: no such file'],
    ],
    [
      'a flag no command takes',
      'file `lib/archive/walk/walkDay.ts`; flag `--max-pass`',
      ['x: flag `--max-pass`: no'],
    ],
    [
      'a state field the item lacks',
      'file `lib/archive/walk/walkDay.ts`; state `DAY#<day>.seal`',
      ['x: state'],
    ],
    [
      'a context key the stack does not read',
      'file `lib/archive/walk/walkDay.ts`; context `window`',
      ['x: context'],
    ],
    [
      'a value with no kind',
      'file `lib/archive/walk/walkDay.ts`; `WINDOW_DAYS`',
      ['x: `WINDOW_DAYS` has no kind'],
    ],
    ['no file', 'flag `--max-passes`', ['x: names no file']],
  ])('tells %s', (_, line, expected) => {
    const wrong = problems(glossaryEntries(`### x\n\nText.\n\n**Where:** ${line}.\n`));
    expect(wrong).toHaveLength(expected.length);
    for (const [i, start] of expected.entries()) expect(wrong[i]).toContain(start);
  });
});
