import type { ArchiveDeps, ArchiveOptions } from '../../lib/archive/run/runTypes.ts';

/** An engine call of one step: the run's ports with the API and keys, and options under the Lambda's deadline. */
export type EngineCall<T> = (deps: ArchiveDeps, options: ArchiveOptions) => Promise<T>;
