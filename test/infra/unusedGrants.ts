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
  'VerifyJob/Role': {
    'logs:CreateLogStream': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    'logs:PutLogEvents': 'Lambda writes the function logs with its role; no SDK call of the handler.',
  },
  'SecurityLake/Role': {
    'logs:CreateLogStream': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    'logs:PutLogEvents': 'Lambda writes the function logs with its role; no SDK call of the handler.',
    's3:ListBucket':
      "The findings source lists each day's history/ partition (a finding's related sessions); the bundle test runs the sessions source (test/ocsf/writeSecurityLake.int.test.ts lists them).",
  },
  'Integrity/ChecksumJobRole': {
    's3:ListBucket':
      "S3 Batch Operations builds a checksum job's manifest from its time filter by listing the archive; the service's call, no SDK call of ours (no S3 Control endpoint locally).",
    's3:ListBucketVersions':
      'S3 Batch Operations lists object versions for the manifest of a versioned archive bucket; the service, not our code.',
    's3:GetObject':
      'S3 Batch Operations reads each object of the slice to compute its checksum; the service, not our code.',
    's3:GetObjectVersion':
      'S3 Batch Operations reads the manifest-named version of each object of a versioned bucket; the service, not our code.',
    's3:PutObject':
      'S3 Batch Operations writes the generated manifest and the completion report under checksum-jobs/; the service, not our code.',
    's3:GetBucketLocation':
      'S3 Batch Operations checks the region of the report bucket before it writes the completion report; the service.',
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
