import * as z from 'zod';
import { OCSF_CLASSES } from './ocsfArchive.ts';

/**
 * One Security Lake custom source as the deployment names it (CDK context `securityLake.sources`, the
 * function's `SECURITY_LAKE_SOURCES`): the class, the lake bucket and the source's prefix, and the
 * provider role Security Lake created with its external id.
 */
export const lakeSourceSchema = z.strictObject({
  cls: z.enum(OCSF_CLASSES),
  bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name'),
  prefix: z.string().regex(/^ext\/[^/]+\/?$/, "the custom source's prefix, ext/<source name>/"),
  roleArn: z.string().regex(/^arn:aws[\w-]*:iam::\d{12}:role\/.+$/, 'an IAM role ARN'),
  externalId: z.string().min(2),
});

export type LakeSourceSetting = z.infer<typeof lakeSourceSchema>;

/** The sources of one deployment: one per class at most (Security Lake takes one class per source). */
export const lakeSourcesSchema = z
  .array(lakeSourceSchema)
  .min(1)
  .refine((list) => new Set(list.map((s) => s.cls)).size === list.length, 'one source per class');
