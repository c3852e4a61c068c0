/**
 * Integrity's public entry point: the auditor's verify, the weekly verify's judgement, the archive's status and
 * the report's model. The report's renderer, which loads the charting and DOM packages, is behind
 * ./adapters.ts.
 */
export { buildReportModel } from './report/buildReportModel.ts';
export type { StatusInputs } from './status/archiveStatus.ts';
export { archiveStatus, readStatusInputs } from './status/archiveStatus.ts';
export type { ExpectedHead } from './verify/checkHead.ts';
export { parseExpectedHead } from './verify/checkHead.ts';
export { describeFullVerify, describeVerified } from './verify/describeVerified.ts';
export { readLastFullVerify } from './verify/mergeVerifyJob.ts';
export { verifyArchive } from './verify/verifyArchive.ts';
export type { VerifyResult } from './verify/verifyTypes.ts';
