import { SETTINGS } from '../config/configSpec.ts';

const flagLines = SETTINGS.filter((s) => 'flag' in s)
  .map(
    (s) =>
      `  --${(s as { flag: string }).flag.padEnd(22)} ${s.env}${s.default !== undefined ? ` (default ${s.default})` : ''}`,
  )
  .join('\n');

export const USAGE = `tunnel-archiver: keep every tunnel session of your account as Athena-ready Parquet.

Usage:
  tunnel-archiver start                  local mode: with no TUNNEL_API_KEY, archive the embedded emulator's
                                         60 days into ./archive; with a key, the real account
  tunnel-archiver run [flags]            one archiving run (key from TUNNEL_API_KEY)
  tunnel-archiver status [flags]         per-day table: scanned, sealed, records, at risk
  tunnel-archiver verify [flags]         compare the API's totals with the archive; exit 5 on a gap
  tunnel-archiver emulator [--help]      serve the upstream API emulator

Flags (each also an environment variable; flags win):
${flagLines}
  --now ISO                  act as if the time were ISO (simulation)
  --days D1,D2               run: scan exactly these days (on-demand backfill within the window)
  --json                     machine-readable output
  --help                     this text

Exit codes: 0 ok, 1 failure, 2 bad configuration, 3 API key rejected (401), 4 paid plan required (403),
5 verify found a gap, 6 another run holds the lease.
`;
