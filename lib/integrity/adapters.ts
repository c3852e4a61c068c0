/**
 * Integrity's parts that load outside packages when imported: the report's renderer (Observable Plot,
 * linkedom). Only the report command imports it.
 */
export { renderReport } from './report/renderReport.ts';
