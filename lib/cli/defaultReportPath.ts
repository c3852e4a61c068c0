import { resolve } from 'node:path';
import { localDestDir } from './buildRuntime.ts';

/** Where `report` writes by default: `report.html` in a local archive's folder, else in the current folder. */
export function defaultReportPath(dest: string): string {
  return resolve(localDestDir(dest) ?? '.', 'report.html');
}

/**
 * The lines `npm start` ends with about the report: the command that writes it, as it runs from the
 * project folder, and where the page will be. Kept apart from the report command, so `start` does not
 * load the report's dependencies.
 */
export function reportHint(dest: string, defaultDest: string): string {
  const flag = dest === defaultDest ? '' : ` --dest '${dest}'`;
  return `See the archive as one HTML page:\n  npx tunnel-archiver report${flag}\nwrites ${defaultReportPath(dest)}\n`;
}
