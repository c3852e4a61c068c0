import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archiveMetaSchema } from '../../lib/state/stateSchemas.ts';
import { describeVerified } from '../../lib/verify/describeVerified.ts';
import { DEFAULT_ROTATION_WEEKS } from '../../lib/verify/verifyWeekly.ts';

const DOC = readFileSync(new URL('../../docs/integrity.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
const STATUS = readFileSync(new URL('../../lib/cli/statusCommand.ts', import.meta.url), 'utf8');

describe('docs/integrity.md on the weekly verify', () => {
  it('names the rotation period the code defaults to', () => {
    expect(DOC).toContain(`within a rotation period (${DEFAULT_ROTATION_WEEKS} weeks)`);
  });

  it('names where the progress is kept (META verified), and status prints it as the doc says', () => {
    expect(DOC).toContain('(META `verified`');
    expect(Object.keys(archiveMetaSchema.shape)).toContain('verified');
    expect(DOC).toContain('shown by `status` ("weekly verify: …")');
    expect(STATUS).toContain('weekly verify: $' + '{describeVerified(meta?.verified)}');
    expect(describeVerified(undefined)).toMatch(/^never/);
  });
});
