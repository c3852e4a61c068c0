import { VERIFY_JOB_ASSUMPTIONS, verifyJobCost } from '../../lib/integrity/verify/verifyJobCost.ts';

/** The example docs/integrity.md prices: 1 TB over 10 years of daily partitions. */
export const DOC_EXAMPLE = { bytes: 1e12, files: 120_000, items: 14_601, digests: 3_650 };

/** The doc's cost table's figures for `DOC_EXAMPLE`, by placeholder name, as the doc spells them. */
export function fullVerifyCostTable(): Record<string, string> {
  const c = verifyJobCost(DOC_EXAMPLE);
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const usd = (x: number) => `$${x.toFixed(2)}`;
  return {
    COST_GETS: n(c.gets),
    COST_PUTS: n(c.putsAndLists),
    COST_REQUESTS: usd(c.dollars.requests),
    COST_GB: n(c.gbRead),
    COST_RATE: String(VERIFY_JOB_ASSUMPTIONS.readMBPerSecond),
    COST_GBS: n(c.lambdaGbSeconds),
    COST_LAMBDA: usd(c.dollars.lambda),
    COST_PER_ITEM: String(VERIFY_JOB_ASSUMPTIONS.transitionsPerItem),
    COST_TRANSITIONS: n(c.transitions),
    COST_STEPS: usd(c.dollars.transitions),
    COST_TOTAL: usd(c.dollars.total),
  };
}
