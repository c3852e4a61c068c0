/**
 * One IAM role by its ARN: an optional path, then the name, in IAM's own characters and no wildcard. A
 * pattern like `role/.+` would let a setting name `role/*`, and the grant built from it would reach every role
 * of the account. Every setting that names a role (the checksum job's, a Security Lake provider's, the
 * break-glass role) is checked with it.
 */
export const ROLE_ARN = /^arn:aws[\w-]*:iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]+$/;
