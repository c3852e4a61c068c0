import { type CfnTemplate, REGION, resolver } from './templateArns.ts';

/**
 * A function's `Environment.Variables` exactly as its resource in the synthesized template sets them, every
 * reference resolved as CloudFormation would in one account (`templateArns.ts`: a bucket is `ta-<logical
 * id>`, a table its logical id, a secret its ARN). A test runs a function with this and nothing else the
 * product reads: the stand-ins are created under these names.
 */
export function templateVariables(template: CfnTemplate, functionId: string): Record<string, string> {
  const fn = template.Resources[functionId];
  if (fn?.Type !== 'AWS::Lambda::Function') throw new Error(`${functionId} is no function of the template`);
  const env = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
  const resolved = resolver(template)(env ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(resolved).map(([k, v]) => [k, String(v)]));
}

/** The local stand-ins' addresses: the SDK's own `AWS_ENDPOINT_URL_<SERVICE>` variables, as a test sets them. */
export interface StandInEndpoints {
  s3?: string;
  dynamodb?: string;
  secretsManager?: string;
  kms?: string;
  sns?: string;
  eventBridge?: string;
  athena?: string;
  sts?: string;
}

const ENDPOINT_VARS: Record<keyof StandInEndpoints, string> = {
  s3: 'AWS_ENDPOINT_URL_S3',
  dynamodb: 'AWS_ENDPOINT_URL_DYNAMODB',
  secretsManager: 'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  kms: 'AWS_ENDPOINT_URL_KMS',
  sns: 'AWS_ENDPOINT_URL_SNS',
  eventBridge: 'AWS_ENDPOINT_URL_EVENTBRIDGE',
  athena: 'AWS_ENDPOINT_URL_ATHENA',
  sts: 'AWS_ENDPOINT_URL_STS',
};

/** What the Lambda runtime itself sets in every function's environment (a subset the code may read). */
export function lambdaRuntimeVariables(functionName: string, memoryMb: number): Record<string, string> {
  return {
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    // The stand-ins' credentials (s3rver's; the others accept any).
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_SESSION_TOKEN: 'stand-in-session',
  };
}

/**
 * The whole environment a function of the template runs with in a test: the runtime's variables, the
 * template's own, and the stand-ins' endpoints. Nothing else: a variable the template does not set stays
 * unset, as in a first deploy.
 */
export function deployedEnv(
  template: CfnTemplate,
  functionId: string,
  endpoints: StandInEndpoints,
): Record<string, string> {
  const props = template.Resources[functionId]?.Properties ?? {};
  return {
    ...lambdaRuntimeVariables(functionId, Number(props.MemorySize ?? 128)),
    ...templateVariables(template, functionId),
    ...Object.fromEntries(
      Object.entries(endpoints).map(([k, v]) => [ENDPOINT_VARS[k as keyof StandInEndpoints], String(v)]),
    ),
  };
}
