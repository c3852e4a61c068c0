import type { Access, TemplatePolicies } from './roleAccess.ts';

/**
 * Actions a role is granted that no recorded call of its functions used, each kept for a reason: what
 * uses it that the tests cannot record (the Lambda service itself, a path only a big or broken archive
 * takes). Keyed by the role's construct path in the stack (`Archiver/Role`, `Fanout/StateMachine/Role`).
 */
export const UNUSED_GRANT_REASONS: Record<string, Record<string, string>> = {
  'Archiver/Role': {
    'logs:CreateLogStream': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    'logs:PutLogEvents': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    'sqs:SendMessage': 'Lambda sends a failed asynchronous invocation to the failure queue with the role.',
    'sqs:GetQueueAttributes': 'Lambda checks the failure queue (its on-failure destination) with the role.',
    'sqs:GetQueueUrl': 'Lambda resolves the failure queue (its on-failure destination) with the role.',
    'dynamodb:DeleteItem':
      'Replaced chunk items of a live-session state too big for one item (ACTIVE#*); the tests keep it small.',
    's3:CreateJob':
      "The weekly verify's S3 Batch Operations checksum jobs: no S3 Control endpoint locally (test/verify/s3ChecksumJobs.test.ts checks the requests).",
    's3:DescribeJob':
      "Judging the weekly verify's checksum jobs: no S3 Control endpoint locally (test/verify/s3ChecksumJobs.test.ts checks the requests).",
    'iam:PassRole':
      'S3 Batch Operations takes the checksum job role from CreateJob; IAM checks it, not an SDK call.',
  },
  'Snapshots/Role': {
    'logs:CreateLogStream': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    'logs:PutLogEvents': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    'dynamodb:DeleteItem':
      'Replaced chunk items of a live-session state too big for one item (ACTIVE#*); the tests keep it small.',
  },
  'Detections/Role': {
    'glue:GetPartitions':
      "Athena's guide lists it for queries of a partitioned table; ours project dt (no Glue partitions are read), kept so a table without projection still works.",
    'logs:CreateLogStream': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    'logs:PutLogEvents': 'Lambda writes the function logs with its role; no SDK call of the handler.',
  },
  'SecurityLake/Role': {
    'logs:CreateLogStream': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    'logs:PutLogEvents': 'Lambda writes the function logs with its role; no SDK call of the handler.',
  },
};

/** The actions a role's Allow statements grant. */
export function grantedActions(policies: TemplatePolicies, roleId: string): Set<string> {
  const out = new Set<string>();
  for (const { policy } of policies.identityPolicies(roleId))
    for (const s of policy.Statement)
      if (s.Effect === 'Allow') for (const a of [s.Action].flat()) out.add(String(a));
  return out;
}

/** A role's granted actions that no access used: with the reason kept for each, or none. */
export function unusedGrants(
  granted: ReadonlySet<string>,
  used: readonly Access[],
  reasons: Record<string, string>,
): { action: string; reason: string | undefined }[] {
  const usedActions = new Set(used.map((a) => a.action));
  return [...granted]
    .filter((a) => !usedActions.has(a))
    .sort()
    .map((action) => ({ action, reason: reasons[action] }));
}
