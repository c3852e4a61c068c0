/**
 * The AWS CLI commands the docs and the stack's outputs use, and the options each takes: a small
 * allow-list copied from the AWS CLI v2 command reference
 * (https://awscli.amazonaws.com/v2/documentation/api/latest/reference/<service>/<command>.html, read for
 * each entry below), so a misspelt or invented option fails the docs test instead of a reader's shell.
 * Only the options our commands could use are listed; a command not listed fails the test until it is.
 */
const AWS_OPTIONS: Record<string, { options: readonly string[]; positionals: number }> = {
  // secretsmanager/put-secret-value.html
  'secretsmanager put-secret-value': {
    options: [
      '--secret-id',
      '--secret-string',
      '--secret-binary',
      '--client-request-token',
      '--version-stages',
    ],
    positionals: 0,
  },
  // secretsmanager/create-secret.html
  'secretsmanager create-secret': {
    options: ['--name', '--secret-string', '--secret-binary', '--description', '--kms-key-id', '--tags'],
    positionals: 0,
  },
  // secretsmanager/restore-secret.html
  'secretsmanager restore-secret': { options: ['--secret-id'], positionals: 0 },
  // lambda/invoke.html: the one positional is the outfile
  'lambda invoke': {
    options: [
      '--function-name',
      '--invocation-type',
      '--log-type',
      '--client-context',
      '--payload',
      '--qualifier',
    ],
    positionals: 1,
  },
  // dynamodb/create-table.html
  'dynamodb create-table': {
    options: [
      '--table-name',
      '--attribute-definitions',
      '--key-schema',
      '--billing-mode',
      '--deletion-protection-enabled',
      '--no-deletion-protection-enabled',
      '--sse-specification',
      '--tags',
    ],
    positionals: 0,
  },
  // dynamodb/wait/table-exists.html
  'dynamodb wait table-exists': { options: ['--table-name'], positionals: 0 },
  // dynamodb/update-continuous-backups.html
  'dynamodb update-continuous-backups': {
    options: ['--table-name', '--point-in-time-recovery-specification'],
    positionals: 0,
  },
  // stepfunctions/start-execution.html
  'stepfunctions start-execution': {
    options: ['--state-machine-arn', '--name', '--input', '--trace-header'],
    positionals: 0,
  },
  // s3/sync.html: <source> <destination>
  's3 sync': {
    options: ['--exclude', '--include', '--delete', '--dryrun', '--only-show-errors', '--exact-timestamps'],
    positionals: 2,
  },
  // s3/presign.html: <S3Uri>
  's3 presign': { options: ['--expires-in'], positionals: 1 },
  // dynamodb/update-table.html
  'dynamodb update-table': {
    options: [
      '--table-name',
      '--deletion-protection-enabled',
      '--no-deletion-protection-enabled',
      '--billing-mode',
    ],
    positionals: 0,
  },
  // dynamodb/restore-table-to-point-in-time.html
  'dynamodb restore-table-to-point-in-time': {
    options: [
      '--source-table-name',
      '--target-table-name',
      '--restore-date-time',
      '--use-latest-restorable-time',
    ],
    positionals: 0,
  },
  // securitylake/create-custom-log-source.html
  'securitylake create-custom-log-source': {
    options: ['--source-name', '--source-version', '--event-classes', '--configuration'],
    positionals: 0,
  },
  // iam/update-assume-role-policy.html
  'iam update-assume-role-policy': { options: ['--role-name', '--policy-document'], positionals: 0 },
  // kms/schedule-key-deletion.html
  'kms schedule-key-deletion': { options: ['--key-id', '--pending-window-in-days'], positionals: 0 },
  // kms/cancel-key-deletion.html, kms/enable-key.html
  'kms cancel-key-deletion': { options: ['--key-id'], positionals: 0 },
  'kms enable-key': { options: ['--key-id'], positionals: 0 },
};

/** Options every AWS CLI command takes (reference: "Global Options"). */
const GLOBAL_OPTIONS = [
  '--cli-binary-format',
  '--cli-read-timeout',
  '--cli-connect-timeout',
  '--region',
  '--profile',
  '--output',
  '--query',
  '--endpoint-url',
  '--no-cli-pager',
];
/** Options that take no value (the AWS CLI's boolean switches among those above). */
const SWITCHES = new Set([
  '--deletion-protection-enabled',
  '--no-deletion-protection-enabled',
  '--delete',
  '--dryrun',
  '--only-show-errors',
  '--exact-timestamps',
  '--no-cli-pager',
  '--use-latest-restorable-time',
]);

export interface AwsCall {
  /** `service operation` (`dynamodb wait table-exists` for a waiter). */
  command: string;
  options: Record<string, string[]>;
  positionals: string[];
}

/**
 * The argv an `aws` shim recorded, read as the AWS CLI reads it; throws naming what the CLI would refuse
 * (an unknown command, an option the command does not take, a missing value, a positional too many).
 */
export function parseAwsCall(argv: readonly string[], opts: { fragment?: boolean } = {}): AwsCall {
  const [service = '', op = '', ...rest] = argv;
  let command = `${service} ${op}`;
  let args = rest;
  if (op === 'wait') {
    command = `${service} wait ${rest[0] ?? ''}`;
    args = rest.slice(1);
  }
  const spec = AWS_OPTIONS[command];
  if (spec === undefined) throw new Error(`aws ${command}: not a command the allow-list knows`);
  const options: Record<string, string[]> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('--')) {
      positionals.push(a);
      continue;
    }
    if (!spec.options.includes(a) && !GLOBAL_OPTIONS.includes(a))
      throw new Error(`aws ${command}: unknown option ${a}`);
    if (SWITCHES.has(a)) {
      options[a] = [...(options[a] ?? []), ''];
      continue;
    }
    const value = args[++i];
    if (value === undefined || value.startsWith('--')) throw new Error(`aws ${command}: ${a} needs a value`);
    options[a] = [...(options[a] ?? []), value];
  }
  if (!opts.fragment && positionals.length !== spec.positionals)
    throw new Error(
      `aws ${command}: takes ${spec.positionals} positional argument(s), got ${positionals.length}`,
    );
  return { command, options, positionals };
}
