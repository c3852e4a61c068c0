import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { objectStoreFromUrl } from '../archive/adapters.ts';
import { loadConfig } from '../archive/index.ts';
import { offsetClock, systemClock } from '../foundation/index.ts';
import { renderReport } from '../integrity/adapters.ts';
import { buildReportModel, verifyArchive } from '../integrity/index.ts';
import type { CliIo } from './cliIo.ts';
import { defaultReportPath } from './defaultReportPath.ts';
import { type CliFlags, parseNow } from './parseCliFlags.ts';
import { readStateIfAny } from './readStateIfAny.ts';
import { assertLocalArchiveExists } from './statusCommand.ts';

/**
 * `tunnel-archiver report`: one self-contained HTML page of the archive (coverage calendar, activity,
 * health, findings, integrity). Reads only. `--verify` adds a fresh archive-only check, the same as
 * `verify` without an API key.
 */
export async function reportCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const config = loadConfig({ flags: flags.values, env: io.env, readsOnly: true });
  const now = parseNow(flags.values.now);
  const clock = now ? offsetClock(now) : systemClock;
  assertLocalArchiveExists(config.dest, undefined, { needState: false });
  const out =
    typeof flags.values.out === 'string' ? resolve(flags.values.out) : defaultReportPath(config.dest);
  const state = await readStateIfAny(config, io, 'the report uses the digests alone');
  const objects = objectStoreFromUrl(config.dest);
  try {
    const head = state?.meta?.chainHead;
    const verify = flags.values.verify
      ? await verifyArchive(
          { objects, clock },
          {
            windowDays: config.windowDays,
            pageSize: config.pageSize,
            expectedHeads: head ? [{ seq: head.seq, sha256: head.sha256, source: 'the state' }] : [],
          },
        )
      : undefined;
    const model = await buildReportModel({
      objects,
      clock,
      windowDays: config.windowDays,
      ...(state ? { state } : {}),
      ...(verify ? { verify } : {}),
    });
    const html = renderReport(model);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, html);
    io.stdout.write(
      flags.values.json
        ? `${JSON.stringify({ out, bytes: Buffer.byteLength(html) })}\n`
        : `Report: ${out} (${Math.round(Buffer.byteLength(html) / 1024)} KiB); open it in a browser\n`,
    );
    return 0;
  } finally {
    await objects.close?.();
  }
}
