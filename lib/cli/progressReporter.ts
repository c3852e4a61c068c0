import type { ProgressEvent } from '../archive/index.ts';
import type { StderrLines } from './cliLog.ts';

/** A progress bar redrawn in place on a terminal; one plain line per day otherwise (CI logs, pipes). */
export function progressReporter(
  lines: StderrLines,
  tty: boolean,
): { onProgress: (e: ProgressEvent) => void; finish: () => void } {
  let records = 0;
  return {
    onProgress: (e) => {
      records += e.newRecords;
      if (tty) {
        const width = 30;
        const filled = Math.round((e.done / Math.max(1, e.total)) * width);
        lines.progress(
          `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} days  ${records} new records  (${e.day})`,
        );
      } else {
        const ended = e.cut ? 'cut by the deadline, goes on next run' : 'done';
        lines.progress(`day ${e.day} ${ended} (${e.done}/${e.total}), ${e.newRecords} new records`);
      }
    },
    finish: () => lines.end(),
  };
}
