/**
 * The archive core's adapters that load the AWS SDK when imported. Kept out of ./index.ts so that a command
 * that never speaks to AWS (status of a local archive, query, help) never loads the SDK: the CLI imports this
 * entry only where it needs S3 or DynamoDB.
 */
export { ensureStateTableAt, stateStoreFromUrl } from './state/stateStoreFromUrl.ts';
export { objectStoreFromUrl } from './store/objectStoreFromUrl.ts';
