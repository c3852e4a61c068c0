import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { INTEGRITY_ENV } from '../../functions/shared/telemetryNames.ts';
import { CHECKSUM_REPORTS_EVENT } from '../../infra/constructs/archiveIntegrity.ts';
import { fullVerifyCommand, VERIFY_JOB_CONCURRENCY } from '../../infra/constructs/verifyJob.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { archiveMetaSchema } from '../../lib/archive/state/archiveMeta.ts';
import { CHECKSUM_REPORTS_PREFIX } from '../../lib/integrity/verify/checksumJobs.ts';
import { REPORT_FORMAT } from '../../lib/integrity/verify/checksumReportFormat.ts';
import { describeVerified } from '../../lib/integrity/verify/describeVerified.ts';
import { VERIFY_JOB_ASSUMPTIONS } from '../../lib/integrity/verify/verifyJobCost.ts';
import { verifyJobKeys } from '../../lib/integrity/verify/verifyJobTypes.ts';
import { DEFAULT_ROTATION_WEEKS } from '../../lib/integrity/verify/verifyWeekly.ts';
import { DOC_EXAMPLE, fullVerifyCostTable } from './fullVerifyCostTable.ts';

const DOC = readFileSync(new URL('../../docs/integrity.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('docs/integrity.md on the weekly verify', () => {
  it('names the rotation period the code defaults to', () => {
    expect(DOC).toContain(`within a rotation period (${DEFAULT_ROTATION_WEEKS} weeks)`);
  });

  it('names where the progress is kept (META verified); integrityDocStatus.int.test.ts runs status for the line it shows', () => {
    expect(DOC).toContain('(META `verified`');
    expect(Object.keys(archiveMetaSchema.shape)).toContain('verified');
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

describe('docs/integrity.md on the full verify job', () => {
  const { stack, template } = synthApp();
  const resources = template.toJSON().Resources as Record<string, { Properties: Record<string, unknown> }>;
  const idOf = (c: { node: { defaultChild?: unknown } }) => stack.getLogicalId(c.node.defaultChild as never);
  const machine = resources[idOf(stack.verifyJob.stateMachine)]?.Properties ?? {};
  const definition = JSON.stringify(machine.DefinitionString);

  it('gives the command the stack outputs, naming the verify job state machine', () => {
    expect(DOC).toContain(fullVerifyCommand('<VerifyJob state machine ARN>'));
    const output = JSON.stringify(template.toJSON().Outputs.FullVerifyCommand.Value);
    expect(output).toContain(`"Ref":"${idOf(stack.verifyJob.stateMachine)}"`);
    expect(output).toContain('aws stepfunctions start-execution --state-machine-arn ');
    expect(output).toContain(`--input '{\\"jobId\\":\\"audit-YYYY-MM-DD\\"}'`);
  });

  it('names the concurrency, the memory and the steps the template deploys', () => {
    expect(definition).toContain(`MaxConcurrency\\":${VERIFY_JOB_CONCURRENCY}`);
    expect(DOC).toContain(`a Distributed Map of Lambda workers, ${VERIFY_JOB_CONCURRENCY} at a time`);
    const fn = resources[idOf(stack.verifyJob.fn)]?.Properties ?? {};
    expect(fn.MemorySize).toBe(VERIFY_JOB_ASSUMPTIONS.memoryGb * 1024);
    expect(DOC).toContain(`(${VERIFY_JOB_ASSUMPTIONS.memoryGb} GB function`);
    for (const state of ['Plan', 'CheckItems', 'Merge']) expect(definition).toContain(`\\"${state}\\"`);
    // No tolerated failures: an item that still fails fails the job.
    expect(definition).not.toContain('ToleratedFailure');
    // Nothing schedules it.
    const rules = JSON.stringify(template.findResources('AWS::Events::Rule'));
    expect(rules).not.toContain(idOf(stack.verifyJob.stateMachine));
  });

  it('names where results go, as the code does (integrityDocStatus.int.test.ts runs status for what it prints)', () => {
    expect(DOC).toContain(`\`${verifyJobKeys.result('<jobId>')}\``);
    expect(DOC).toContain(`\`${archiveKeys.lastFullVerify}\``);
  });

  it('prices the example with the cost model, figure by figure', () => {
    const t = fullVerifyCostTable();
    const row = (...cells: string[]) => `| ${cells.join(' | ')} |`.replace(/\s+/g, ' ');
    expect(DOC).toContain(
      `(14,601 items: 3,650 days of 4 prefixes and the chain; 120,000 files; 3,650 digests)`,
    );
    expect(DOC_EXAMPLE).toEqual({ bytes: 1e12, files: 120_000, items: 3_650 * 4 + 1, digests: 3_650 });
    expect(DOC).toContain(row('GET requests', t.COST_GETS as string, ''));
    expect(DOC).toContain(
      row('PUT and LIST requests', t.COST_PUTS as string, `${t.COST_REQUESTS} (requests)`),
    );
    expect(DOC).toContain(row('GB read (inside the region: no transfer charge)', t.COST_GB as string, ''));
    expect(DOC).toContain(
      row(
        `Lambda GB-s (1 GB function, about ${t.COST_RATE} MB/s a worker)`,
        t.COST_GBS as string,
        t.COST_LAMBDA as string,
      ),
    );
    expect(DOC).toContain(
      row(
        `state transitions (${t.COST_PER_ITEM} an item)`,
        t.COST_TRANSITIONS as string,
        t.COST_STEPS as string,
      ),
    );
    expect(DOC).toContain(row('total', '', t.COST_TOTAL as string));
  });
});
