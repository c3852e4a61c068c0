import type { IAspect } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/**
 * Reserved concurrency only when the team asks for it (the `reservedConcurrency` context). Each function
 * declares what it would reserve (the archiver 1, the fan-out its map concurrency + 1, ...), about 30 in
 * all; a new account's concurrency quota is often 10, and Lambda refuses a reservation that leaves less
 * than its minimum unreserved, so by default nothing is reserved: the state machines' `MaxConcurrency` and
 * the run lease already bound how many run at once.
 */
export class ReservedConcurrency implements IAspect {
  constructor(private readonly reserve: boolean) {}

  visit(node: IConstruct): void {
    if (node instanceof CfnFunction && !this.reserve) node.reservedConcurrentExecutions = undefined;
  }
}

/** What the functions of a template reserve in all (the quota the `reservedConcurrency` option needs). */
export function reservedInAll(functions: Record<string, { Properties?: Record<string, unknown> }>): number {
  return Object.values(functions).reduce(
    (sum, f) => sum + Number(f.Properties?.ReservedConcurrentExecutions ?? 0),
    0,
  );
}
