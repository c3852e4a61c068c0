import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createStateTableCommands, STATE_TABLE } from '../../lib/archive/state/stateTableSpec.ts';

const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const section = doc.slice(
  doc.indexOf('\n## The state table\n'),
  doc.indexOf('\n## ', doc.indexOf('\n## The state table\n') + 5),
);

describe('docs/operations.md, the state table', () => {
  it('gives the commands the CLI prints when it may not create the table, as the CLI prints them', () => {
    for (const command of createStateTableCommands('<table>')) expect(section).toContain(command);
  });

  it('states the key, the billing and the protection the stack and the CLI give the table', () => {
    expect(section).toContain(`partition key \`${STATE_TABLE.partitionKey}\`, a string; no sort key`);
    expect(section).toContain(`\`${STATE_TABLE.billingMode}\``);
    expect(STATE_TABLE.pointInTimeRecovery && STATE_TABLE.deletionProtection).toBe(true);
    expect(section).toContain('point-in-time recovery on, deletion protection on');
  });
});
