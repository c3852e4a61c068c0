import type { ProgressEvent } from '../engine/runTypes.ts';
import type { CliIo } from './cliIo.ts';

/** A one-line progress bar on a terminal; plain lines otherwise (CI logs, pipes). */
export function progressReporter(io: CliIo): { onProgress: (e: ProgressEvent) => void; finish: () => void } {
  const tty = Boolean(io.stderr.isTTY);
  let records = 0;
  return {
    onProgress: (e) => {
      records += e.newRecords;
      if (tty) {
        const width = 30;
        const filled = Math.round((e.done / Math.max(1, e.total)) * width);
        io.stderr.write(
          `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} days  ${records} new records  (${e.day})`,
        );
      } else {
        io.stderr.write(`day ${e.day} done (${e.done}/${e.total}), ${e.newRecords} new records\n`);
      }
    },
    finish: () => {
      if (tty) io.stderr.write('\n');
    },
  };
}
