import type { ITable, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';

/*
 * aws-cdk-lib's classes declare optional members as `T | undefined` where their own interfaces say
 * `T`, so under `exactOptionalPropertyTypes` a `Bucket` is not an `IBucket`. These identity casts
 * keep that one wart in one place instead of scattering `as` through the constructs.
 */
export const asIBucket = (bucket: Bucket): IBucket => bucket as IBucket;
export const asITable = (table: TableV2): ITable => table as ITable;
export const asISecret = (secret: Secret): ISecret => secret as ISecret;
