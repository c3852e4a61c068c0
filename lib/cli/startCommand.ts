import { EMULATOR_PAID_KEY, SETTINGS, startEmulator } from '../archive/index.ts';
import { ArchiverError, offsetClock, systemClock } from '../foundation/index.ts';
import type { CliIo } from './cliIo.ts';
import { reportHint } from './defaultReportPath.ts';
import type { CliFlags } from './parseCliFlags.ts';
import { parseNow } from './parseCliFlags.ts';
import { executeRun, exitCodeOfRun, runContext, whereToLook } from './runCommand.ts';

/** What `npm start` adds on the emulator: the emulator planted one pattern per detection rule. */
export const DETECT_HINT =
  'Detections (the emulator planted one suspicious pattern per rule; see docs/detections.md):\n  npx tunnel-archiver detect\n';

const DEFAULT_DEST = SETTINGS.find((s) => s.key === 'dest')?.default ?? 'file://./archive';

/**
 * `npm start`: with TUNNEL_API_KEY, one run against the real account; without, an embedded emulator
 * is started in-process and its whole window is archived into ./archive (or --dest). Ends with a
 * `tunnel-archiver query` command line that works as printed. Everything is validated before the
 * emulator starts or anything is written.
 */
export async function startCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const json = flags.values.json === true;
  if (io.env.TUNNEL_API_KEY) {
    const ctx = runContext(flags, io);
    const summary = await executeRun(ctx, io, json);
    if (!json)
      io.stdout.write(whereToLook(ctx.config, DEFAULT_DEST) + reportHint(ctx.config.dest, DEFAULT_DEST));
    return exitCodeOfRun(summary);
  }
  if (flags.values['base-url'] !== undefined)
    throw new ArchiverError(
      'CONFIG_INVALID',
      'start takes --base-url only with TUNNEL_API_KEY set: without a key it archives the embedded emulator',
    );
  // Validate first with a stand-in URL: the emulator's own is known only once it listens.
  runContext(flags, io, { baseUrl: 'http://127.0.0.1', apiKey: EMULATOR_PAID_KEY });
  const now = parseNow(flags.values.now);
  // The detections demo: office traffic plus one planted pattern per starter rule, so `detect` shows findings.
  const emulator = await startEmulator({
    seed: 1,
    clock: now ? offsetClock(now) : systemClock,
    detectionDemo: true,
  });
  try {
    const ctx = runContext(flags, io, { baseUrl: emulator.url, apiKey: EMULATOR_PAID_KEY });
    // Through the logger, so stderr keeps one format (JSON lines off a terminal).
    if (!ctx.quiet)
      ctx.logger.info('no TUNNEL_API_KEY: archiving from the embedded emulator', { url: emulator.url });
    const summary = await executeRun(ctx, io, json);
    if (!json)
      io.stdout.write(
        whereToLook(ctx.config, DEFAULT_DEST) + reportHint(ctx.config.dest, DEFAULT_DEST) + DETECT_HINT,
      );
    return exitCodeOfRun(summary);
  } finally {
    await emulator.close();
  }
}
