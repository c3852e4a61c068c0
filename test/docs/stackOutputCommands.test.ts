import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CfnTemplate, resolver } from '../../devkit/infra/templateArns.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { parseArchiveEvent } from '../../functions/archive-history/parseArchiveEvent.ts';
import { API_KEY_ENV, setApiKeyCommand } from '../../infra/constructs/apiKeySecret.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { verifyJobIdSchema } from '../../lib/integrity/verify/verifyJobTypes.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const { template } = synthApp();
const json = template.toJSON() as CfnTemplate & { Outputs: Record<string, { Value: unknown }> };
const resolve = resolver(json);
/** Each output's value as a deployed stack prints it. */
const outputs = Object.fromEntries(
  Object.entries(json.Outputs).map(([id, o]) => [id, String(resolve(o.Value))]),
) as Record<string, string>;

const tmp = tempDirPer('ta-stack-commands-', 'test');

/**
 * Runs `command` in bash as a user pastes it, with an `aws` on PATH that records its arguments (one per
 * line) instead of calling AWS; `env` is the user's shell.
 */
function paste(
  command: string,
  env: Record<string, string>,
): { code: number | null; stderr: string; argv?: string[] } {
  const bin = join(tmp.dir, 'bin');
  const log = join(tmp.dir, 'aws-argv');
  spawnSync('mkdir', ['-p', bin]);
  writeFileSync(join(bin, 'aws'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > "${log}"\n`);
  chmodSync(join(bin, 'aws'), 0o755);
  const r = spawnSync('bash', ['-c', command], {
    env: { PATH: `${bin}:${process.env.PATH ?? ''}`, ...env },
    encoding: 'utf8',
  });
  return {
    code: r.status,
    stderr: r.stderr,
    ...(existsSync(log) ? { argv: readFileSync(log, 'utf8').split('\n').slice(0, -1) } : {}),
  };
}

describe("the stack's SetApiKeyCommand", () => {
  it('is the command README.md and docs/operations.md give, for the secret the stack made', () => {
    const secretArn = outputs.ApiKeySecretArn as string;
    expect(outputs.SetApiKeyCommand).toBe(setApiKeyCommand(secretArn));
    for (const page of ['README.md', 'docs/operations.md'])
      expect(read(page), page).toContain(setApiKeyCommand('<ApiKeySecretArn>'));
    expect(read('README.md')).toContain(`export ${API_KEY_ENV}=`);
  });

  it.each([
    ['unset', {}],
    ['empty', { [API_KEY_ENV]: '' }],
    ['exported under another name', { PINGGY_API_KEY: 'pk_live_123' }],
  ])('stores nothing when the key variable is %s: the shell refuses, naming the variable', (_how, env) => {
    const r = paste(outputs.SetApiKeyCommand as string, env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(API_KEY_ENV);
    expect(r.argv).toBeUndefined();
  });

  it('stores the key exported as the docs say', () => {
    const r = paste(outputs.SetApiKeyCommand as string, { [API_KEY_ENV]: 'pk_live_123' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.argv).toEqual([
      'secretsmanager',
      'put-secret-value',
      '--secret-id',
      outputs.ApiKeySecretArn,
      '--secret-string',
      'pk_live_123',
    ]);
  });
});

describe("the stack's VerifyNowCommand", () => {
  it('invokes the archiver synchronously with {"verify": true}, waiting past the AWS CLI’s 60 s read timeout', () => {
    const r = paste(outputs.VerifyNowCommand as string, {});
    expect(r.code, r.stderr).toBe(0);
    const argv = r.argv ?? [];
    expect(argv.slice(0, 4)).toEqual(['lambda', 'invoke', '--function-name', outputs.FunctionName]);
    expect(argv[argv.indexOf('--cli-read-timeout') + 1]).toBe('0');
    expect(JSON.parse(argv[argv.indexOf('--payload') + 1] ?? 'null')).toEqual({ verify: true });
    expect(argv).not.toContain('--invocation-type');
  });
});

/** The value after `flag` in a recorded argv. */
const valueAfter = (argv: string[] | undefined, flag: string): string | undefined =>
  argv?.[argv.indexOf(flag) + 1];

describe('every command the stack prints', () => {
  it('is one of those run below', () => {
    expect(
      Object.keys(outputs)
        .filter((id) => id.endsWith('Command'))
        .sort(),
    ).toEqual(
      [
        'FullVerifyCommand',
        'OpenReportCommand',
        'RunNowCommand',
        'SetApiKeyCommand',
        'VerifyNowCommand',
      ].sort(),
    );
  });

  it('RunNowCommand starts a run now, without waiting: an event the archiver takes as its scheduled run', () => {
    const r = paste(outputs.RunNowCommand as string, {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.argv?.slice(0, 4)).toEqual(['lambda', 'invoke', '--function-name', outputs.FunctionName]);
    expect(valueAfter(r.argv, '--invocation-type')).toBe('Event');
    expect(parseArchiveEvent(JSON.parse(valueAfter(r.argv, '--payload') ?? 'null'))).toEqual({
      kind: 'scheduled',
    });
  });

  it('VerifyNowCommand’s payload is the archiver’s verify request', () => {
    const r = paste(outputs.VerifyNowCommand as string, {});
    expect(parseArchiveEvent(JSON.parse(valueAfter(r.argv, '--payload') ?? 'null'))).toEqual({
      kind: 'verify',
    });
  });

  it('FullVerifyCommand starts the verify job’s state machine with a job id its plan step takes', () => {
    const r = paste(outputs.FullVerifyCommand as string, {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.argv?.slice(0, 2)).toEqual(['stepfunctions', 'start-execution']);
    const arn = valueAfter(r.argv, '--state-machine-arn') ?? '';
    const machine = Object.entries(json.Resources).find(
      ([id, res]) => res.Type === 'AWS::StepFunctions::StateMachine' && String(resolve({ Ref: id })) === arn,
    );
    expect(machine?.[0]).toMatch(/^VerifyJob/);
    const input = JSON.parse(valueAfter(r.argv, '--input') ?? 'null') as { jobId?: unknown };
    expect(verifyJobIdSchema.safeParse(input.jobId).success).toBe(true);
    // The machine's Plan step hands the input's jobId to the function's plan step.
    const definition = JSON.parse(String(resolve(machine?.[1].Properties?.DefinitionString))) as {
      StartAt: string;
      States: Record<string, { Parameters?: Record<string, unknown> }>;
    };
    // A LambdaInvoke with payloadResponseOnly: its Parameters are the payload.
    expect(definition.States[definition.StartAt]?.Parameters).toEqual({
      step: 'plan',
      'jobId.$': '$.jobId',
    });
  });

  it('OpenReportCommand presigns the report the weekly verify writes, in the archive bucket, for an hour', () => {
    const r = paste(outputs.OpenReportCommand as string, {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.argv).toEqual([
      's3',
      'presign',
      `s3://${outputs.ArchiveBucketName}/${archiveKeys.report}`,
      '--expires-in',
      '3600',
    ]);
  });
});
