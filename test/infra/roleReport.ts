import type { Stack } from 'aws-cdk-lib';
import { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { Access, TemplatePolicies } from './roleAccess.ts';
import { grantedActions, UNUSED_GRANT_REASONS, unusedGrants } from './unusedGrants.ts';

/** One role of the least-privilege report: its unused actions with their reasons, and stale reasons. */
export interface RoleReport {
  /** The role's construct path in the stack (`Archiver/Role`), the key of its reasons. */
  role: string;
  roleId: string;
  used: number;
  unused: { action: string; reason: string | undefined }[];
  /** Reasons kept for an action the role no longer grants, or that a call now uses. */
  stale: string[];
}

/**
 * The least-privilege report of every role of the stack (a role added later is in it without being
 * named here): what each role grants against what its functions' recorded calls and its services used.
 */
export function roleReports(
  stack: Stack,
  policies: TemplatePolicies,
  used: ReadonlyMap<string, readonly Access[]>,
): RoleReport[] {
  const prefix = `${stack.node.path}/`;
  return stack.node
    .findAll()
    .filter((c): c is CfnRole => c instanceof CfnRole)
    .map((cfn) => {
      const roleId = stack.getLogicalId(cfn);
      const role = (cfn.node.scope?.node.path ?? cfn.node.path).slice(prefix.length);
      const reasons = UNUSED_GRANT_REASONS[role] ?? {};
      const accesses = used.get(roleId) ?? [];
      const unused = unusedGrants(grantedActions(policies, roleId), accesses, reasons);
      const stale = Object.keys(reasons).filter((a) => !unused.some((u) => u.action === a));
      return { role, roleId, used: accesses.length, unused, stale };
    });
}

/** The report's failures: each unused action without a reason, and each stale reason, by role. */
export function reportFailures(report: readonly RoleReport[]): { unexplained: string[]; stale: string[] } {
  return {
    unexplained: report.flatMap((r) =>
      r.unused.filter((u) => !u.reason).map((u) => `${r.role}: ${u.action}`),
    ),
    stale: report.flatMap((r) => r.stale.map((a) => `${r.role}: ${a}`)),
  };
}
