/**
 * The synthesized template with real names: every `Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Select`,
 * `Fn::Split` and `Fn::Sub` resolved as CloudFormation would in one account and region, each resource
 * named after its logical id. IAM policies then compare against ARNs, as IAM does.
 */
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
const PSEUDO: Record<string, string> = {
  'AWS::Partition': 'aws',
  'AWS::Region': REGION,
  'AWS::AccountId': ACCOUNT,
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'TunnelArchiver',
};

type Json = Record<string, unknown>;
export interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Json }>;
}

/** A secret's ARN ends in six random characters; these stand for them. */
export const SECRET_SUFFIX = '-AbCdEf';

/** What `Ref` gives for a resource of each type (its name, or its ARN where CloudFormation gives that). */
function ref(id: string, type: string, props: Json): string {
  const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;
  switch (type) {
    case 'AWS::S3::Bucket':
      return `ta-${id.toLowerCase()}`;
    case 'AWS::KMS::Key':
      return `key-${id}`;
    case 'AWS::SecretsManager::Secret':
      return arn('secretsmanager', `secret:${(props.Name as string | undefined) ?? id}${SECRET_SUFFIX}`);
    case 'AWS::SNS::Topic':
      return arn('sns', id);
    case 'AWS::StepFunctions::StateMachine':
      return arn('states', `stateMachine:${id}`);
    case 'AWS::SQS::Queue':
      return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${id}`;
    case 'AWS::Athena::WorkGroup':
      return String(props.Name);
    case 'AWS::Glue::Database':
      return String((props.DatabaseInput as Json | undefined)?.Name ?? id);
    default:
      return id;
  }
}

/** What `Fn::GetAtt` gives. */
function getAtt(id: string, type: string, props: Json, attribute: string): string {
  const name = ref(id, type, props);
  const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;
  if (attribute !== 'Arn') {
    if (type === 'AWS::StepFunctions::StateMachine' && attribute === 'Name') return id;
    if (type === 'AWS::SNS::Topic' && attribute === 'TopicName') return id;
    return `${id}.${attribute}`;
  }
  switch (type) {
    case 'AWS::S3::Bucket':
      return `arn:aws:s3:::${name}`;
    case 'AWS::DynamoDB::GlobalTable':
    case 'AWS::DynamoDB::Table':
      return arn('dynamodb', `table/${name}`);
    case 'AWS::KMS::Key':
      return arn('kms', `key/${name}`);
    case 'AWS::Lambda::Function':
      return arn('lambda', `function:${name}`);
    case 'AWS::Logs::LogGroup':
      return arn('logs', `log-group:${name}:*`);
    case 'AWS::SQS::Queue':
      return arn('sqs', id);
    case 'AWS::IAM::Role':
      return `arn:aws:iam::${ACCOUNT}:role/${id}`;
    case 'AWS::SecretsManager::Secret':
    case 'AWS::SNS::Topic':
    case 'AWS::StepFunctions::StateMachine':
      return name;
    default: {
      // Resources no policy of the stack names by ARN: a plausible ARN of their service.
      const [, service = 'unknown', kind = 'resource'] = type.split('::');
      return arn(service.toLowerCase(), `${kind.toLowerCase()}/${id}`);
    }
  }
}

/** Resolves CloudFormation's intrinsic functions in `value` against `template`. */
export function resolver(template: CfnTemplate): (value: unknown) => unknown {
  const resource = (id: string) => {
    const r = template.Resources[id];
    if (!r) throw new Error(`no resource ${id} in the template`);
    return r;
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const o = value as Json;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [k] = keys as [string];
      const arg = o[k];
      if (k === 'Ref') {
        const id = String(arg);
        if (PSEUDO[id] !== undefined) return PSEUDO[id];
        if (!template.Resources[id]) return `parameter-${id}`;
        const r = resource(id);
        return ref(id, r.Type, r.Properties ?? {});
      }
      if (k === 'Fn::GetAtt') {
        const [id, attribute] = (Array.isArray(arg) ? arg : String(arg).split('.')) as [string, string];
        const r = resource(id);
        return getAtt(id, r.Type, r.Properties ?? {}, attribute);
      }
      if (k === 'Fn::Join') {
        const [sep, parts] = arg as [string, unknown[]];
        return parts.map((p) => String(resolve(p))).join(sep);
      }
      if (k === 'Fn::Select') {
        const [i, list] = arg as [number, unknown];
        return (resolve(list) as unknown[])[Number(i)];
      }
      if (k === 'Fn::Split') {
        const [sep, text] = arg as [string, unknown];
        return String(resolve(text)).split(sep);
      }
      if (k === 'Fn::Sub') {
        const [text, vars] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, Json];
        return text.replace(/\$\{([^}]+)\}/g, (_m, name: string) => {
          if (vars[name] !== undefined) return String(resolve(vars[name]));
          const [id, attribute] = name.split('.') as [string, string | undefined];
          return String(resolve(attribute ? { 'Fn::GetAtt': [id, attribute] } : { Ref: id }));
        });
      }
    }
    return Object.fromEntries(keys.map((k) => [k, resolve(o[k])]));
  };
  return resolve;
}
