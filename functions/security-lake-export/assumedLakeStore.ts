import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import type { LakeSource } from '../../lib/analytics/ocsf/securityLakeLayout.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';
import { withHostPlugins } from '../shared/awsClients.ts';
import { hostClientPlugins } from '../shared/hostClientPlugins.ts';

export interface AssumedLakeStoreOptions {
  region: string;
  /** The S3 client's settings (an S3-compatible endpoint in tests). */
  s3?: S3ClientConfig;
  /** An STS endpoint (tests); AWS's regional one otherwise. */
  stsEndpoint?: string;
  /** Credentials that call STS (tests); the function's own role otherwise. */
  callerCredentials?: AwsCredentialIdentity;
}

/**
 * The lake bucket through the custom source's provider role: S3 calls signed with the credentials of
 * `sts:AssumeRole` on `source.roleArn` with its `ExternalId` (as Security Lake requires of a provider),
 * refreshed by the SDK before they expire. `close()` destroys the client.
 */
export function assumedLakeStore(source: LakeSource, o: AssumedLakeStoreOptions): ObjectStore {
  const credentials = fromTemporaryCredentials({
    params: {
      RoleArn: source.roleArn,
      ExternalId: source.externalId,
      RoleSessionName: `tunnel-archiver-${source.cls}`,
      DurationSeconds: 3600,
    },
    clientConfig: { region: o.region, ...(o.stsEndpoint ? { endpoint: o.stsEndpoint } : {}) },
    ...(o.callerCredentials ? { masterCredentials: o.callerCredentials } : {}),
    // The STS client the provider builds takes the host's plugins too, as every client of the functions.
    clientPlugins: hostClientPlugins(),
  });
  const client = withHostPlugins(new S3Client({ region: o.region, ...o.s3, credentials }));
  return {
    ...createS3ObjectStore({ client, bucket: source.location.bucket, prefix: '' }),
    async close() {
      client.destroy();
    },
  };
}
