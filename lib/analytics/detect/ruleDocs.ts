import { ATTACK_TACTICS, ATTACK_TECHNIQUES, attackUrl } from '../ocsf/attackIds.ts';
import type { DetectionRule } from './ruleSchema.ts';
import { EXEMPTIONS } from './ruleSettings.ts';

const cell = (v: unknown) => (Array.isArray(v) ? (v.length === 0 ? '(none)' : v.join(', ')) : String(v));

/** A Markdown table with padded columns (as the formatter leaves it, so a formatted page still matches). */
function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(3, ...all.map((r) => [...(r[i] ?? '')].length)));
  const line = (r: string[]) =>
    `| ${r.map((c, i) => c + ' '.repeat((widths[i] ?? 0) - [...c].length)).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

/**
 * The page of one rule (`docs/detections/<id>.md`), generated from its yml and SQL so the docs cannot
 * drift: `npm run detections:docs` writes them, and a test compares every page with this output.
 */
export function rulePage(rule: DetectionRule): string {
  const settings = table(
    ['setting', 'default'],
    Object.entries({ threshold: rule.threshold, ...rule.settings, ...EXEMPTIONS }).map(([k, v]) => [
      `\`${k}\``,
      cell(v),
    ]),
  );
  const meta = table(
    ['field', 'value'],
    [
      ['id', `\`${rule.id}\``],
      ['uid', `\`${rule.uid}\``],
      ['status', rule.status],
      ['level', rule.level],
      ['author', rule.author],
      ['date', rule.date],
      ['modified', rule.modified],
      [
        'ATT&CK tactic',
        `[${rule.attack.tactic} ${ATTACK_TACTICS[rule.attack.tactic]}](${attackUrl(rule.attack.tactic)})`,
      ],
      [
        'ATT&CK techniques',
        rule.attack.techniques
          .map((t) => `[${t} ${ATTACK_TECHNIQUES[t]?.name ?? ''}](${attackUrl(t)})`)
          .join(', '),
      ],
    ],
  );
  const facts = table(
    ['schedule', 'lookback', 'window', 'quiet gap', 'incident key', 'live'],
    [
      [
        `every ${rule.schedule}`,
        rule.lookback,
        rule.window === '0m' ? 'one session' : `any ${rule.window}`,
        rule.quiet_gap,
        rule.dedupe.key.join(', '),
        rule.live ? 'yes, on every active-list snapshot' : 'no',
      ],
    ],
  );
  const list = (items: readonly string[]) => items.map((i) => `- ${i}`).join('\n');
  const tests = rule.tests
    .map(
      (t) =>
        `- ${t.name}: ${t.findings.length === 0 ? 'no finding' : t.findings.map((f) => `\`${f.entity}\``).join(', ')}`,
    )
    .join('\n');
  return `<!-- Generated from detections/${rule.id}.yml and .sql by \`npm run detections:docs\`; do not edit. -->
# ${rule.title}

${rule.description}

${meta}

## Runbook

${rule.runbook}

## False positives

${list(rule.falsepositives)}

## References

${rule.references.length === 0 ? '(none)' : list(rule.references)}

## Evaluation

${facts}

One incident per incident key: activity within the quiet gap of an incident's last activity updates it
(count, last seen, records) and is not delivered again; activity after a longer pause is a new incident.

## Settings

Overridable per deployment (\`detect --settings FILE\`, or the \`detections\` CDK context), without editing the SQL.

${settings}

## Tests (in the yml, run by \`tunnel-archiver detect --test\` and \`npm test\`)

${tests}

## SQL

\`\`\`sql
${rule.sql.trimEnd()}
\`\`\`
`;
}
