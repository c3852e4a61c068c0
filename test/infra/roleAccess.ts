import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { ACCOUNT, type CfnTemplate, resolver } from '../../devkit/infra/templateArns.ts';

/** One permission a call needs: an IAM action on a resource, with the request's condition keys. */
export interface Access {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
  /** The call that needs it, for the failure message (`S3Client PutObjectCommand history/dt=...`). */
  call: string;
}

type Statement = Record<string, unknown>;
interface PolicyDocument {
  Version?: string;
  Statement: Statement[];
}

const list = <T>(x: T | T[] | undefined): T[] => (Array.isArray(x) ? x : x === undefined ? [] : [x]);

/** The template resolved once, with its roles' identity policies and its resource policies found. */
export class TemplatePolicies {
  readonly resolved: CfnTemplate;

  constructor(template: CfnTemplate) {
    const resolve = resolver(template);
    this.resolved = { Resources: resolve(template.Resources) as CfnTemplate['Resources'] };
  }

  /** The logical id of the role a Lambda function or a state machine runs as. */
  roleOf(resourceId: string): string {
    const props = this.resolved.Resources[resourceId]?.Properties ?? {};
    const arn = String(props.Role ?? props.RoleArn ?? '');
    const id = arn.split('/').at(-1);
    if (!id || !this.resolved.Resources[id]) throw new Error(`${resourceId} has no role in the template`);
    return id;
  }

  roleArn(roleId: string): string {
    return `arn:aws:iam::${ACCOUNT}:role/${roleId}`;
  }

  /** Every policy attached to the role: its own inline ones and the AWS::IAM::Policy resources naming it. */
  identityPolicies(roleId: string): { name: string; policy: PolicyDocument }[] {
    const out: { name: string; policy: PolicyDocument }[] = [];
    const role = this.resolved.Resources[roleId]?.Properties ?? {};
    for (const p of list(role.Policies as { PolicyName: string; PolicyDocument: PolicyDocument }[]))
      out.push({ name: p.PolicyName, policy: p.PolicyDocument });
    for (const [id, r] of Object.entries(this.resolved.Resources)) {
      if (r.Type !== 'AWS::IAM::Policy') continue;
      if (!list(r.Properties?.Roles as string[]).includes(roleId)) continue;
      out.push({ name: id, policy: r.Properties?.PolicyDocument as PolicyDocument });
    }
    return out;
  }

  /** The resource policy that governs `arn`: a bucket's policy, a key's policy or a topic's policy. */
  resourcePolicy(arn: string): PolicyDocument | undefined {
    for (const r of Object.values(this.resolved.Resources)) {
      const p = r.Properties ?? {};
      if (r.Type === 'AWS::S3::BucketPolicy' && arn.startsWith(`arn:aws:s3:::${String(p.Bucket)}`)) {
        const rest = arn.slice(`arn:aws:s3:::${String(p.Bucket)}`.length);
        if (rest === '' || rest.startsWith('/')) return p.PolicyDocument as PolicyDocument;
      }
      if (r.Type === 'AWS::SNS::TopicPolicy' && list(p.Topics as string[]).includes(arn))
        return p.PolicyDocument as PolicyDocument;
    }
    if (arn.startsWith('arn:aws:kms:')) {
      const keyId = arn.split('/').at(-1);
      for (const [id, r] of Object.entries(this.resolved.Resources))
        if (r.Type === 'AWS::KMS::Key' && `key-${id}` === keyId)
          return r.Properties?.KeyPolicy as PolicyDocument;
    }
    return undefined;
  }

  /** Every resource of a type, by logical id, with its resolved properties. */
  resources(type: string): [string, Record<string, unknown>][] {
    return Object.entries(this.resolved.Resources)
      .filter(([, r]) => r.Type === type)
      .map(([id, r]) => [id, r.Properties ?? {}]);
  }
}

/** Why an access is refused, in words, or undefined when IAM allows it. */
export async function refusal(
  policies: TemplatePolicies,
  roleId: string,
  access: Access,
  identity = policies.identityPolicies(roleId),
): Promise<string | undefined> {
  const resourcePolicy = policies.resourcePolicy(access.resource);
  const simulation: Simulation = {
    identityPolicies: identity,
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    ...(resourcePolicy ? { resourcePolicy } : {}),
    request: {
      action: access.action,
      principal: policies.roleArn(roleId),
      resource: { resource: access.resource, accountId: ACCOUNT },
      contextVariables: {
        // IAM sets these on every request from the principal: key and bucket policies condition on them.
        'aws:PrincipalArn': policies.roleArn(roleId),
        'aws:PrincipalAccount': ACCOUNT,
        'aws:SecureTransport': 'true',
        ...(access.action.startsWith('s3:') ? { 's3:TlsVersion': '1.3' } : {}),
        ...access.context,
      },
    },
  } as Simulation;
  const response = await runSimulation(simulation, {});
  if (response.resultType === 'error')
    return `not simulated (${JSON.stringify(response.errors).slice(0, 400)})`;
  if (response.overallResult === 'Allowed') return undefined;
  return response.overallResult === 'ExplicitlyDenied' ? 'explicitly denied' : 'no statement allows it';
}

/** Every refused access of a role, as `<who>: <call> needs <action> on <resource> (<why>)`. */
export async function refusals(
  policies: TemplatePolicies,
  who: string,
  roleId: string,
  accesses: readonly Access[],
  identity = policies.identityPolicies(roleId),
): Promise<string[]> {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const a of accesses) {
    const key = JSON.stringify([a.action, a.resource, a.context]);
    if (seen.has(key)) continue;
    seen.add(key);
    const why = await refusal(policies, roleId, a, identity);
    const context = a.context ? ` with ${JSON.stringify(a.context)}` : '';
    if (why) out.push(`${who}: ${a.call} needs ${a.action} on ${a.resource}${context} (${why})`);
  }
  return out;
}
