import type { DetectionRule } from './ruleSchema.ts';

const cell = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v));

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
    Object.entries({ threshold: rule.threshold, ...rule.settings }).map(([k, v]) => [`\`${k}\``, cell(v)]),
  );
  const facts = table(
    ['schedule', 'lookback', 'dedupe key', 'dedupe period', 'live'],
    [
      [
        `every ${rule.schedule}`,
        rule.lookback,
        rule.dedupe.key.join(', '),
        rule.dedupe.period,
        rule.live ? 'yes, on every active-list snapshot' : 'no',
      ],
    ],
  );
  const tests = rule.tests
    .map(
      (t) =>
        `- ${t.name}: ${t.findings.length === 0 ? 'no finding' : t.findings.map((f) => `\`${f.entity}\``).join(', ')}`,
    )
    .join('\n');
  return `<!-- Generated from detections/${rule.id}.yml and .sql by \`npm run detections:docs\`; do not edit. -->
# ${rule.title}

\`${rule.id}\` · severity **${rule.severity}** · MITRE ATT&CK ${rule.mitre.map((t) => `[${t}](https://attack.mitre.org/techniques/${t.replace('.', '/')}/)`).join(', ')}

${rule.runbook}

${facts}

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
