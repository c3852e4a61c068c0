import { systemClock } from '../clock/clock.ts';
import { offsetClock } from '../clock/offsetClock.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../emulator/startEmulator.ts';
import type { CliIo } from './cliIo.ts';
import type { CliFlags } from './parseCliFlags.ts';
import { parseNow } from './parseCliFlags.ts';
import { executeRun, runContext, whereToLook } from './runCommand.ts';
import { USAGE } from './usage.ts';

/**
 * `npm start`: with TUNNEL_API_KEY, one run against the real account; without, an embedded emulator
 * is started in-process and its whole window is archived into ./archive (or --dest).
 */
export async function startCommand(flags: CliFlags, io: CliIo): Promise<number> {
  if (flags.values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (io.env.TUNNEL_API_KEY) {
    const ctx = runContext(flags, io);
    await executeRun(ctx, io, flags.values.json === true);
    io.stdout.write(whereToLook(ctx.config));
    return 0;
  }
  const now = parseNow(flags.values.now);
  const emulator = await startEmulator({ seed: 1, clock: now ? offsetClock(now) : systemClock });
  try {
    io.stderr.write(`No TUNNEL_API_KEY: archiving from the embedded emulator at ${emulator.url}\n`);
    const ctx = runContext(flags, io, { baseUrl: emulator.url, apiKey: EMULATOR_PAID_KEY });
    await executeRun(ctx, io, flags.values.json === true);
    io.stdout.write(whereToLook(ctx.config));
    return 0;
  } finally {
    await emulator.close();
  }
}
