/**
 * The state table as the stack declares it and the CLI creates it: one string partition key `pk` (no sort
 * key; every item is found by its `pk`, see `createDynamoStateStore`), on-demand billing, point-in-time
 * recovery on, deletion protection on. `infra/tunnelArchiverStack.ts` reads the key from here, and
 * `ensureStateTable` creates exactly this, so a table made by either one is the same table.
 */
export const STATE_TABLE = {
  partitionKey: 'pk',
  /** DynamoDB's attribute type of the key: a string. */
  partitionKeyType: 'S',
  billingMode: 'PAY_PER_REQUEST',
  pointInTimeRecovery: true,
  deletionProtection: true,
} as const;

/**
 * The AWS CLI commands that create the state table by hand, for a person whose credentials may not
 * create it from `tunnel-archiver run` (and for docs/operations.md): create, wait until ACTIVE, turn on
 * point-in-time recovery.
 */
export function createStateTableCommands(table: string): string[] {
  const { partitionKey: pk, partitionKeyType: type, billingMode } = STATE_TABLE;
  return [
    `aws dynamodb create-table --table-name ${table} --attribute-definitions AttributeName=${pk},AttributeType=${type} --key-schema AttributeName=${pk},KeyType=HASH --billing-mode ${billingMode} --deletion-protection-enabled`,
    `aws dynamodb wait table-exists --table-name ${table}`,
    enablePitrCommand(table),
  ];
}

/** The AWS CLI command that turns point-in-time recovery on for the table. */
export function enablePitrCommand(table: string): string {
  return `aws dynamodb update-continuous-backups --table-name ${table} --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true`;
}
