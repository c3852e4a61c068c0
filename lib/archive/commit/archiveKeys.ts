import type { Day } from '../../foundation/index.ts';
import type { Dataset } from '../state/partitionManifest.ts';

const STAMP = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-/;

/**
 * Object key layout under the destination root: the one source for `lib/`, `functions/` and `infra/`.
 * `history/` and `active/` are the Athena table locations; `_staging/` holds files not yet published.
 */
export const archiveKeys = {
  historyPrefix: 'history/',
  activePrefix: 'active/',
  /** What the detection rules found (the Glue table `tunnel_findings`). */
  findingsPrefix: 'findings/',
  stagingPrefix: '_staging/',
  quarantinePrefix: 'quarantine/',
  /** The digest chain (`lib/archive/digest/digestKeys.ts` lays out the keys under it). */
  digestsPrefix: 'digests/',
  /** The HTML report the weekly verify writes (replaced each week; outside the write-once prefixes). */
  reportsPrefix: 'reports/',
  report: 'reports/index.html',
  /** The weekly verify's result (`verify --json`'s shape), which a local `report` shows when it runs none. */
  lastVerify: 'reports/verify.json',
  /** The last full verify job's merged result (`lib/integrity/verify/mergeVerifyJob.ts`). */
  lastFullVerify: 'reports/full-verify.json',
  /** Full verify jobs: each job's plan, its items' results and its merged result (outside the chain, not write-once). */
  verifyJobsPrefix: 'verify-jobs/',
  /** The prefix of a dataset's partitions (`history/`, `active/`, `findings/`). */
  datasetPrefix: (dataset: Dataset) => `${dataset}/`,
  data: (dt: Day, name: string) => `history/dt=${dt}/${name}`,
  dataOf: (dataset: Dataset, dt: Day, name: string) => `${dataset}/dt=${dt}/${name}`,
  /**
   * One staging area a writer: each dataset's files are staged under its own prefix, and the fan-out's
   * bookkeeping under its own, so IAM grants each role only the area it writes (one writer per prefix;
   * infra/ builds the grants from this list).
   */
  stagingAreas: {
    history: '_staging/history/',
    active: '_staging/active/',
    findings: '_staging/findings/',
    /** The fan-out's items, item outcomes, range ids and finished marker (`lib/archive/fanout/fanoutTypes.ts`). */
    fanout: '_staging/fanout/',
    /** The fan-out's Distributed Map result files (its state machine's role writes them). */
    fanoutResults: '_staging/fanout-results/',
    /** A cut walk's carried ids (`lib/archive/walk/carriedRows.ts`). */
    walks: '_staging/walks/',
  },
  staging: (runId: string, dt: Day, name: string) => `_staging/history/${runId}/dt=${dt}/${name}`,
  /** Where a file is staged before its manifest lists it: `_staging/<dataset>/<run>/dt=<dt>/<name>`. */
  stagingOf: (dataset: Dataset, runId: string, dt: Day, name: string) =>
    `_staging/${dataset}/${runId}/dt=${dt}/${name}`,
  quarantine: (day: Day, id: string) => `quarantine/day=${day}/${id}.json`,
  /** `20261122T101500Z`: the sortable UTC stamp that starts every data file name. */
  stamp: (at: Date) =>
    at
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z'),
  /** When a data or staged file was written, from the stamp its name starts with; undefined if it has none. */
  stampedAt: (key: string): Date | undefined => {
    const m = STAMP.exec(key.slice(key.lastIndexOf('/') + 1));
    return m ? new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) : undefined;
  },
};

/** What a listed file holds: one of the Parquet data sets, or one quarantined record (JSON). */
export type ListedDataset = 'history' | 'active' | 'findings' | 'quarantine';

/** Which data set a listed key belongs to, and its `dt` partition (a quarantined record's `day`). */
export function dataKeyInfo(key: string): { dataset: ListedDataset; dt: string | null } {
  if (key.startsWith(archiveKeys.quarantinePrefix)) {
    return { dataset: 'quarantine', dt: /^quarantine\/day=(\d{4}-\d{2}-\d{2})\//.exec(key)?.[1] ?? null };
  }
  const dataset = key.startsWith(archiveKeys.activePrefix)
    ? 'active'
    : key.startsWith(archiveKeys.findingsPrefix)
      ? 'findings'
      : 'history';
  const dt = /(?:^|\/)dt=(\d{4}-\d{2}-\d{2})\//.exec(key)?.[1] ?? null;
  return { dataset, dt };
}

/**
 * A staged data file's dataset and day: `_staging/<dataset>/<run>/dt=<dt>/<name>`, and the layouts older
 * manifests still name (`_staging/<run>/dt=…` for history, `_staging/<run>/<dataset>/dt=…`). Undefined for
 * anything else under `_staging/` (the fan-out's bookkeeping, a cut walk's ids).
 */
export function stagedKeyInfo(key: string): { dataset: Dataset; dt: string } | undefined {
  const m = STAGED.exec(key);
  if (!m) return undefined;
  return { dataset: (m[1] ?? m[2] ?? 'history') as Dataset, dt: m[3] as string };
}

const STAGED =
  /^_staging\/(?:(history|active|findings)\/[^/]+|(?!history\/|active\/|findings\/|fanout|walks\/)[^/]+(?:\/(history|active|findings))?)\/dt=([^/]+)\/[^/]+$/;
