import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INTEGRITY_ENV } from '../../functions/shared/telemetryNames.ts';
import { CHECKSUM_REPORTS_EVENT } from '../../infra/constructs/archiveIntegrity.ts';
import { archiveMetaSchema } from '../../lib/state/stateSchemas.ts';
import { CHECKSUM_REPORTS_PREFIX } from '../../lib/verify/checksumJobs.ts';
import { REPORT_FORMAT } from '../../lib/verify/checksumReportFormat.ts';
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

describe('docs/integrity.md on the store-side checksum jobs', () => {
  it('names the report prefix, the role variable, the report format and the event the code uses', () => {
    expect(DOC).toContain(`under \`${CHECKSUM_REPORTS_PREFIX}\``);
    expect(DOC).toContain(`\`${INTEGRITY_ENV.checksumJobRoleArn}\``);
    expect(DOC).toContain(`(\`${REPORT_FORMAT}\``);
    expect(DOC).toContain(`\`${JSON.stringify(CHECKSUM_REPORTS_EVENT).replace(':', ': ')}\``);
  });

  it('status shows the rotation of the checksum jobs and the newest judged job', () => {
    const line = describeVerified({
      at: '2026-01-05T00:00:00.000Z',
      head: { seq: 9, key: 'digests/0000000009.json', sha256: 'a'.repeat(64) },
      boundary: '2026-01-05T00:00:00.000Z',
      objects: 0,
      unlisted: [],
      rotation: { startedAt: '2026-01-01T00:00:00.000Z', nextSeq: 1, periodWeeks: 13 },
      checksums: {
        weeks: {},
        keyFiles: {},
        rotation: { startedAt: '2026-01-01T00:00:00.000Z', cursor: 2900, periodWeeks: 13 },
        jobs: [],
        verdicts: [],
        lastChecked: {
          rotation: {
            id: 'j',
            kind: 'rotation',
            checkedAt: '2026-01-06T00:00:00.000Z',
            before: '2025-06-01T00:00:00.000Z',
            objects: 120,
            ok: true,
          },
        },
      },
    });
    expect(line).toContain('store checksum jobs: rotation at week of 2025-07-31');
    expect(line).toContain('last rotation job 120 object(s) written ever to 2025-06-01T00:00:00.000Z');
    expect(line).toContain('intact');
  });
});
