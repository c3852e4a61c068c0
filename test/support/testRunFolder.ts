import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_RUN_FOLDER } from '../../devkit/testRunFolderVariable.ts';

/**
 * Vitest's global setup: one folder for the whole test run, removed when the run ends. A test process keeps
 * what must outlive its tests (the CLI children's configuration folder, `devkit/runCli.ts`) inside it:
 * Vitest ends its worker processes without the `exit` event, so a process's own clean-up does not run.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'ta-test-run-'));
  process.env[TEST_RUN_FOLDER] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
