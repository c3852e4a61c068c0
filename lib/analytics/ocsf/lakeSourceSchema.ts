import * as z from 'zod';
import { ROLE_ARN } from '../../archive/index.ts';
import { OCSF_CLASSES } from './ocsfArchive.ts';

/**
 * One Security Lake custom source as the deployment names it (CDK context `securityLake.sources`, the
 * function's `SECURITY_LAKE_SOURCES`): the class, the lake bucket and the source's prefix, the provider
 * role Security Lake created, and the Secrets Manager secret (name or ARN) that holds its external id. The
 * external id itself never appears in the context, the template or the function's environment.
 */
export const lakeSourceSchema = z.strictObject({
  cls: z.enum(OCSF_CLASSES),
  bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name'),
  prefix: z.string().regex(/^ext\/[^/]+\/?$/, "the custom source's prefix, ext/<source name>/"),
  roleArn: z.string().regex(ROLE_ARN, 'one IAM role ARN, without wildcards'),
  externalIdSecret: z
    .string()
    .regex(
      /^(arn:aws[\w-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:)?[\w/+=.@-]+$/,
      'a Secrets Manager secret name or ARN holding the external id',
    ),
  externalId: z
    .never({
      error:
        'externalId is no longer written in the context: store it in Secrets Manager (aws secretsmanager create-secret --name tunnel-archiver/lake-external-id-<class> --secret-string <id>) and name the secret as externalIdSecret',
    })
    .optional(),
});

export type LakeSourceSetting = z.infer<typeof lakeSourceSchema>;

/** The sources of one deployment: one per class at most (Security Lake takes one class per source). */
export const lakeSourcesSchema = z
  .array(lakeSourceSchema)
  .min(1)
  .refine((list) => new Set(list.map((s) => s.cls)).size === list.length, 'one source per class');
