import { OCSF_FORMATS } from '../ocsf/exportOcsf.ts';
import { OCSF_CLASSES } from '../ocsf/ocsfArchive.ts';
import { type FlagSet, HELP_FLAG } from './parseCliFlags.ts';

/** Flags of `export` (apart from the command, so `--help` loads no DuckDB). */
export const EXPORT_FLAGS: FlagSet = {
  ocsf: { type: 'boolean', help: 'export OCSF events (the one format export writes; required)' },
  class: {
    type: 'string',
    help: `${OCSF_CLASSES.join('|')}: Tunnel Activity 4014, or Detection Finding 2004`,
  },
  since: { type: 'string', help: 'DAY (YYYY-MM-DD): first UTC day of event time (required)' },
  until: { type: 'string', help: 'DAY (YYYY-MM-DD): last UTC day of event time, included (required)' },
  format: { type: 'string', help: `${OCSF_FORMATS.join('|')} (default jsonl)` },
  out: { type: 'string', help: 'DIR to write ocsf-<class>-<since>-<until>.<format> into (required)' },
  archive: {
    type: 'string',
    help: 'the archive to read: a folder or s3://bucket/prefix (default ARCHIVE_DEST); read only',
  },
  ...HELP_FLAG,
};
