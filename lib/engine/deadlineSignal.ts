import type { ArchiveDeps, ArchiveOptions } from './runTypes.ts';

/** The abort signal of the run's deadline for requests and walks, or none without a deadline. */
export function deadlineSignal(deps: ArchiveDeps, options: ArchiveOptions): AbortSignal | undefined {
  if (!options.deadline) return undefined;
  const ms = options.deadline.getTime() - deps.clock.now().getTime() - options.deadlineReserveMs / 2;
  return AbortSignal.timeout(Math.max(1, ms));
}
