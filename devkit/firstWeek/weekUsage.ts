import * as z from 'zod';

/** One function's share of one simulated day: what Lambda bills, and the AWS calls it made by `Service:Action`. */
export const functionDaySchema = z.strictObject({
  invocations: z.number().int().nonnegative(),
  /** Billed duration × memory, in GB-seconds (the duration the container measured, rounded up to 1 ms). */
  gbSeconds: z.number().nonnegative(),
  awsCalls: z.record(z.string(), z.number().int().nonnegative()),
  /** Bytes of log lines written (CloudWatch Logs ingestion bills these). */
  logBytes: z.number().int().nonnegative(),
});
export type FunctionDay = z.infer<typeof functionDaySchema>;

/** One simulated day of the first week: from its midnight (UTC) to the next. */
export const weekDaySchema = z.strictObject({
  day: z.iso.date(),
  /** By the function's name in the template without CDK's hash (`SnapshotsFunction`, `Archiver`, ...). */
  functions: z.record(z.string(), functionDaySchema),
  /** By the state machine's name in the template without CDK's hash. */
  stateMachines: z.record(
    z.string(),
    z.strictObject({
      executions: z.number().int().nonnegative(),
      transitions: z.number().int().nonnegative(),
    }),
  ),
  /** Records the day's scheduled archive runs fetched from the API (each run's summary `recordsSeen`). */
  recordsFetched: z.number().int().nonnegative(),
});
export type WeekDay = z.infer<typeof weekDaySchema>;

/**
 * What the simulated first week (test/scenarios/firstWeek.int.test.ts) measured, for the cost model
 * (bench/cost/monthlyCost.ts): every function's invocations, GB-seconds and AWS calls, the state machines'
 * transitions, by simulated day; the custom metrics the functions put; the S3 Batch Operations jobs; and
 * the team's size (sessions the API exposes a day), which the model scales from.
 */
export const weekUsageSchema = z.strictObject({
  start: z.iso.datetime(),
  /** Sessions the API exposed per day, on average over the days of the window (the team the week ran). */
  sessionsPerDay: z.number().positive(),
  /** Rows on one page of the API in the week (the emulator's page cap). */
  pageRows: z.number().int().positive(),
  /** Each function's size as the template deploys it, by its name without CDK's hash. */
  functions: z.record(
    z.string(),
    z.strictObject({ memoryMb: z.number().int().positive(), architecture: z.enum(['arm64', 'x86_64']) }),
  ),
  /** The function each state machine's tasks invoke, by names without CDK's hash. */
  stateMachineFunctions: z.record(z.string(), z.string()),
  days: z.array(weekDaySchema).min(2),
  /** The audit the stack's `FullVerifyCommand` starts after the week: on demand, not on a schedule. */
  fullVerify: weekDaySchema,
  /** Distinct custom metrics (name and dimensions) the functions put through EMF over the week. */
  customMetrics: z.array(z.string()),
  batchOperations: z.strictObject({
    jobs: z.number().int().nonnegative(),
    objects: z.number().int().nonnegative(),
  }),
  findings: z.number().int().nonnegative(),
});
export type WeekUsage = z.infer<typeof weekUsageSchema>;

/** A resource's logical id without the 8-character hash CDK appends (`SnapshotsFunction1A2B3C4D` → `SnapshotsFunction`). */
export function templateName(logicalId: string): string {
  return logicalId.replace(/[0-9A-F]{8}$/, '');
}
