import { ensureStateTable } from '../../lib/archive/state/ensureStateTable.ts';
import { type DynaliteHandle, localDynamoClient, startDynalite } from '../startDynalite.ts';
import { EMULATOR_PAID_KEY } from '../startEmulator.ts';
import { type S3rverHandle, startS3rver } from '../startS3rver.ts';
import { type KmsStubHandle, startKmsStub } from './startKmsStub.ts';
import { type SecretsStubHandle, startSecretsStub } from './startSecretsStub.ts';
import { lambdaRuntimeVariables, type StandInEndpoints } from './templateEnv.ts';

/** The token key the stand-in secret holds (tests derive record ids from it). */
export const STAND_IN_TOKEN_KEY = 'k'.repeat(64);

export interface StandIns {
  s3: S3rverHandle;
  dynamo: DynaliteHandle;
  secrets: SecretsStubHandle;
  kms: KmsStubHandle;
  endpoints: StandInEndpoints;
  /** What the function runs with: the runtime's variables, `vars`, and the stand-ins' endpoints. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Local stand-ins for what an engine function of the template talks to, under the names its template
 * environment (`vars`, from `templateVariables`) gives them: the archive bucket of `ARCHIVE_DEST`, the table of
 * `ARCHIVE_STATE`, the API key and token key secrets of `TUNNEL_API_KEY_SECRET_ID` and `TOKEN_KEY_SECRET_ID`
 * (the paid emulator key, `STAND_IN_TOKEN_KEY`), and KMS. Nothing the template does not set is added.
 */
export async function startStandInsFor(
  vars: Record<string, string>,
  functionName: string,
): Promise<StandIns> {
  const bucket = /^s3:\/\/([^/]+)\//.exec(vars.ARCHIVE_DEST ?? '')?.[1];
  const table = (vars.ARCHIVE_STATE ?? '').replace(/^dynamodb:\/\//, '');
  if (bucket === undefined || table === '')
    throw new Error(`${functionName}: its template sets no S3 archive or table`);
  const [s3, dynamo, secrets, kms] = await Promise.all([
    startS3rver(bucket),
    startDynalite(),
    startSecretsStub({
      ...(vars.TUNNEL_API_KEY_SECRET_ID
        ? { [vars.TUNNEL_API_KEY_SECRET_ID]: JSON.stringify({ apiKey: EMULATOR_PAID_KEY }) }
        : {}),
      ...(vars.TOKEN_KEY_SECRET_ID ? { [vars.TOKEN_KEY_SECRET_ID]: STAND_IN_TOKEN_KEY } : {}),
    }),
    startKmsStub(),
  ]);
  await ensureStateTable(localDynamoClient(dynamo.endpoint), table);
  const endpoints: StandInEndpoints = {
    s3: s3.endpoint,
    dynamodb: dynamo.endpoint,
    secretsManager: secrets.endpoint,
    kms: kms.endpoint,
  };
  return {
    s3,
    dynamo,
    secrets,
    kms,
    endpoints,
    env: {
      ...lambdaRuntimeVariables(functionName, 1024),
      ...vars,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
    },
    close: async () =>
      void (await Promise.allSettled([s3.close(), dynamo.close(), secrets.close(), kms.close()])),
  };
}
