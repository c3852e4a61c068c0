import { type DynamoItemsOptions, dynamoVersionedItems } from './dynamoVersionedItems.ts';
import { stateConcerns } from './stateConcerns.ts';
import type { StateStore } from './statePorts.ts';

export { ensureStateTable } from './ensureStateTable.ts';

export type DynamoStateStoreOptions = DynamoItemsOptions;

/**
 * StateStore on one DynamoDB table keyed by `pk` only: `LEASE`, `META`, `DAY#<day>`, `PART#<dt>`, `ACTIVE`
 * (live-session observations, gzip-compressed, or in `ACTIVE#…` chunk items when big). Wiring only: the
 * concerns (`stateConcerns`) on the DynamoDB versioned-item primitive (`dynamoVersionedItems`), which
 * also reads the items older releases wrote (the lease's plain attributes, the live state's `dataGz`).
 */
export function createDynamoStateStore(opts: DynamoStateStoreOptions): StateStore {
  return stateConcerns(dynamoVersionedItems(opts));
}
