import type { CfnTable } from 'aws-cdk-lib/aws-glue';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct, type IDependable } from 'constructs';
import { ACTIVE_TABLE, activeViews, type ViewSpec } from '../../lib/analytics/query/activeViews.ts';
import { activeKeys } from '../../lib/archive/active/activeKeys.ts';
import { ACTIVE_COLUMNS } from '../../lib/archive/active/activeSchema.ts';
import { DATABASE_NAME, glueTable, parquetGlueTable } from './historyCatalog.ts';

export interface ActiveCatalogProps {
  archive: IBucket;
  /** The Glue database (created by `HistoryCatalog`); the table and views are created after it. */
  database: IDependable;
  /** The history table the views read. */
  historyTable: IDependable;
  windowDays?: number;
}

/** Glue/Hive column types → the Presto/Trino types an Athena view declares. */
const PRESTO_TYPE: Record<string, string> = {
  string: 'varchar',
  timestamp: 'timestamp(3)',
  int: 'integer',
  bigint: 'bigint',
  'array<string>': 'array(varchar)',
};

/**
 * An Athena view as Glue stores one: a `VIRTUAL_VIEW` table whose original text is the base64 of the
 * Presto view JSON. Deployed with the stack, so the views exist without anyone running DDL.
 */
export function prestoViewInput(
  name: string,
  description: string,
  sql: string,
  columns: readonly { name: string; athenaType: string; prestoType?: string }[],
): CfnTable.TableInputProperty {
  const view = {
    originalSql: sql,
    catalog: 'awsdatacatalog',
    schema: DATABASE_NAME,
    columns: columns.map((c) => ({
      name: c.name,
      type: c.prestoType ?? PRESTO_TYPE[c.athenaType] ?? c.athenaType,
    })),
  };
  return {
    name,
    description,
    tableType: 'VIRTUAL_VIEW',
    parameters: { presto_view: 'true', comment: 'Presto View' },
    viewOriginalText: `/* Presto View: ${Buffer.from(JSON.stringify(view), 'utf8').toString('base64')} */`,
    viewExpandedText: '/* Presto View */',
    storageDescriptor: {
      columns: columns.map((c) => ({ name: c.name, type: c.athenaType })),
      serdeInfo: {},
    },
  };
}

/** A view's Glue table (see {@link prestoViewInput}), created after the tables it reads and the database. */
export function glueView(scope: Construct, id: string, view: ViewSpec, after: IDependable[]): CfnTable {
  const table = glueTable(scope, id, prestoViewInput(view.name, view.description, view.sql, view.columns));
  table.node.addDependency(...after);
  return table;
}

/**
 * The Glue table over `active/` (one row per change of a live session; `dt` = UTC day of the
 * observation, projected like history's) and the two views: history rows with their names, and the
 * upstream-loss detector.
 */
export class ActiveCatalog extends Construct {
  readonly table: CfnTable;
  readonly namedView: CfnTable;
  readonly lostView: CfnTable;

  constructor(scope: Construct, id: string, props: ActiveCatalogProps) {
    super(scope, id);
    this.table = parquetGlueTable(this, 'Table', props.archive, props.database, {
      name: ACTIVE_TABLE,
      columns: ACTIVE_COLUMNS,
      prefix: activeKeys.prefix,
      description:
        'One row per change of a live tunnel session (seen, changed, gone); dt = UTC day of the observation',
      dtComment: 'UTC day of the observation, YYYY-MM-DD',
    });
    const views = activeViews({ windowDays: props.windowDays ?? 60 });
    const after = [this.table, props.historyTable, props.database];
    this.namedView = glueView(this, 'NamedView', views.named, after);
    this.lostView = glueView(this, 'LostView', views.lost, after);
  }
}
