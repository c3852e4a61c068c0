/**
 * The layers of lib/, lowest first, and the rules of the folders around it (functions/, devkit/, bench/, test/).
 * A lib folder may import its own layer's files and any lower layer's, never a higher one: so no two
 * folders import each other, and each rule below names the layer it guards. Every lib folder belongs
 * to a layer (a new folder fails until it is placed). `npm test` runs it (`npm run layers`); a change
 * that breaks a rule fails with the rule's name.
 */
const LAYERS = [
  ['errors', ['errors']],
  ['foundation', ['clock', 'log', 'url', 'ids', 'process', 'concurrency', 'fingerprint', 'fs']],
  ['data', ['records', 'store', 'state']],
  ['io', ['upstream', 'emulator']],
  ['commit', ['commit']],
  ['parquet', ['parquet']],
  ['digest', ['digest']],
  ['features', ['keys', 'active']],
  ['config', ['config']],
  ['stage-parts', ['days', 'walk', 'recover']],
  ['run', ['run']],
  ['fanout', ['fanout']],
  ['sql', ['sql']],
  ['tools', ['verify', 'query', 'status']],
  ['ocsf', ['ocsf']],
  ['views', ['report', 'detect']],
  ['cli', ['cli']],
];

/**
 * The groups of lib/, each a folder of its own: lib/<group>/<folder>/. A group is a run of layers, so the
 * groups stack the way the layers do (foundation, archive, then integrity and analytics beside each other,
 * then the CLI, which is its own group and folder).
 */
const GROUPS = {
  foundation: ['errors', 'clock', 'log', 'url', 'ids', 'process', 'concurrency', 'fingerprint', 'fs'],
  archive: [
    'records',
    'store',
    'state',
    'upstream',
    'emulator',
    'commit',
    'parquet',
    'digest',
    'keys',
    'active',
    'config',
    'days',
    'walk',
    'recover',
    'run',
    'fanout',
  ],
  integrity: ['verify', 'status', 'report'],
  analytics: ['sql', 'query', 'ocsf', 'detect'],
  cli: [],
};

/** A layer folder's path under lib/: its group's folder, then its own (the CLI's group is its folder). */
const placed = (folder) => {
  const group = Object.keys(GROUPS).find((g) => GROUPS[g].includes(folder));
  return group ? `${group}/${folder}` : folder;
};

const folders = (list) => `^lib/(${list.map(placed).join('|')})/`;

/**
 * A group's public entry points: index.ts (what the other groups use of it, loading no AWS SDK client, no
 * DuckDB and no charting package) and adapters.ts (the parts that load them, imported only where needed).
 */
const ENTRY = '^lib/[^/]+/(index|adapters)[.]ts$';

/** The order of the groups, lowest first: a group imports only the entry points of the groups below it. */
const GROUP_ORDER = [['foundation'], ['archive'], ['integrity', 'analytics'], ['cli']];

/**
 * The one file a lower layer may import from a higher one: the digest's intake (META's notes of the files
 * the next digest lists) is written by the committer as it commits; it imports nothing above lib/archive/state.
 */
const DOWNWARD_INTAKE = '^lib/archive/digest/pendingDigest[.]ts$';

/**
 * A feature's state items, declared once beside the feature (zod schema, type inferred from it): the state
 * store reads and writes them through these schemas, so lib/archive/state imports them. They import nothing above
 * lib/archive/state (rule `feature-state-items-stay-low`).
 */
const FEATURE_STATE_ITEMS =
  '^lib/(archive/active/activeState|integrity/verify/verifyProgress|archive/digest/digestState)[.]ts$';

/** What a lower layer may import from a higher one. */
const DOWNWARD = `${DOWNWARD_INTAKE}|${FEATURE_STATE_ITEMS}`;

const layerRules = LAYERS.slice(0, -1).map(([name, own], i) => {
  const higher = LAYERS.slice(i + 1).flatMap(([, f]) => f);
  return {
    name: `layer-${name}`,
    comment: `lib/{${own.join(',')}} is the ${name} layer: it must not import a higher layer (${higher.join(', ')})`,
    severity: 'error',
    from: { path: folders(own) },
    to: { path: folders(higher), pathNot: DOWNWARD },
  };
});

/** Folders of one layer stay apart too, so the layering alone rules out folder cycles. */
const sameLayerRules = LAYERS.filter(([, own]) => own.length > 1).map(([name, own]) => ({
  name: `layer-${name}-folders-apart`,
  comment: `the folders of the ${name} layer (${own.join(', ')}) do not import each other`,
  severity: 'error',
  from: { path: folders(own) },
  to: { path: folders(own), pathNot: '^lib/$1/' },
}));

/** A forbidden dependency: every rule of this file is an error, named in the message of what breaks it. */
const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

module.exports = {
  forbidden: [
    ...layerRules,
    ...sameLayerRules,
    rule(
      'digest-intake-stays-low',
      "lib/archive/digest/pendingDigest.ts, which the committer imports, imports nothing above lib/archive/state but the features' state items",
      { path: DOWNWARD_INTAKE },
      { path: folders(LAYERS.slice(3).flatMap(([, f]) => f)), pathNot: FEATURE_STATE_ITEMS },
    ),
    rule(
      'feature-state-items-stay-low',
      "a feature's state items (lib/archive/active/activeState.ts, lib/integrity/verify/verifyProgress.ts, lib/archive/digest/digestState.ts), which the state store imports, import nothing above lib/archive/state",
      { path: FEATURE_STATE_ITEMS },
      { path: folders(LAYERS.slice(3).flatMap(([, f]) => f)) },
    ),
    rule(
      'group-through-entry',
      "a group of lib/ imports another only through that group's entry points (lib/<group>/index.ts, adapters.ts); only a feature's state items, which the state store imports, import directly",
      { path: '^lib/([^/]+)/', pathNot: FEATURE_STATE_ITEMS },
      { path: '^lib/', pathNot: `^lib/$1/|${ENTRY}|${FEATURE_STATE_ITEMS}` },
    ),
    rule(
      'entry-exports-own-group',
      "a group's entry points re-export that group's own files, nothing of another group",
      { path: '^lib/([^/]+)/(index|adapters)[.]ts$' },
      { path: '^lib/', pathNot: '^lib/$1/' },
    ),
    ...GROUP_ORDER.slice(0, -1).map((own, i) =>
      rule(
        `group-${own.join('-')}-below`,
        `lib/{${own.join(',')}} imports no group above or beside it (${GROUP_ORDER.slice(i)
          .flat()
          .join(', ')}), but a feature's state items`,
        { path: `^lib/(${own.join('|')})/` },
        {
          path: `^lib/(${GROUP_ORDER.slice(i).flat().join('|')})/`,
          pathNot: `^lib/$1/|${FEATURE_STATE_ITEMS}`,
        },
      ),
    ),
    rule(
      'fanout-through-run-stages',
      "lib/archive/fanout/ shares the run's stages through lib/archive/run/runStages.ts (and the run's types), not through the run's other files",
      { path: '^lib/archive/fanout/' },
      { path: '^lib/archive/run/', pathNot: '^lib/archive/run/(runStages|runTypes)[.]ts$' },
    ),
    rule(
      'lib-folder-in-a-layer',
      'every folder of lib/ is placed in LAYERS (a file of an unplaced folder imports or is imported)',
      {},
      { path: '^lib/', pathNot: `${folders(LAYERS.flatMap(([, f]) => f))}|${ENTRY}` },
    ),
    rule(
      'lib-folder-in-a-layer-importing',
      'every folder of lib/ is placed in LAYERS',
      { path: '^lib/', pathNot: `${folders(LAYERS.flatMap(([, f]) => f))}|${ENTRY}` },
      {},
    ),
    rule(
      'function-folders-apart',
      'a function folder holds its handler: it imports lib/ and functions/shared/, never another function folder; functions/shared/ imports no function folder',
      { path: '^functions/([^/]+)/' },
      { path: '^functions/', pathNot: '^functions/($1|shared)/' },
    ),
    rule(
      'functions-below-infra',
      'the handlers never import the CDK app, the bench, the tests, the dev kit or the bin scripts',
      { path: '^functions/' },
      { path: '^(infra|bench|test|devkit|bin|tools)/' },
    ),
    rule(
      'bench-imports-no-test',
      'the bench is a registry of cases over the dev kit (devkit/): it imports nothing from test/',
      { path: '^bench/' },
      { path: '^test/' },
    ),
    rule(
      'product-imports-no-devkit',
      'the product (lib/, functions/, infra/, bin/) never imports the dev kit: simulators, stand-ins, crash points and injectors stay outside what ships',
      { path: '^(lib|functions|infra|bin)/' },
      { path: '^devkit/' },
    ),
    rule(
      'devkit-imports-no-test-or-bench',
      'the dev kit sits below the tests and the bench: it imports the product, never test/ or bench/',
      { path: '^devkit/' },
      { path: '^(test|bench)/' },
    ),
    rule(
      'bench-below-its-tests',
      "only the bench's own tests (test/bench/) and the doc figures it produces (test/docs/) import bench/",
      { path: '^test/', pathNot: '^test/(bench|docs)/' },
      { path: '^bench/' },
    ),
    rule(
      'test-files-import-no-test-file',
      'a test file is imported by nobody: shared setup lives in a kit (test/support/ or a helper beside the tests)',
      {},
      { path: '[.]test[.]ts$' },
    ),
    rule(
      'entry-points-above-tools',
      'lib/, functions/, devkit/, bench/ and test/ never import the profiling tools (tools/), but their own tests (test/tools/)',
      { path: '^(lib|functions|devkit|bench|test)/', pathNot: '^test/tools/' },
      { path: '^tools/' },
    ),
    rule(
      'lib-below-entry-points',
      'lib/ is the core: it never imports the Lambda handlers, the CDK app, the dev kit, the bench or the tests',
      { path: '^lib/' },
      { path: '^(functions|infra|devkit|bench|test)/' },
    ),
    rule(
      'aws-sdk-only-in-adapters',
      'the AWS SDK is used only by the adapters that speak to AWS (and the handlers outside lib/)',
      {
        path: '^lib/',
        pathNot:
          '^lib/(archive/store/(s3ObjectStore|objectStoreFromUrl)|archive/state/(dynamoStateStore|dynamoVersionedItems|ensureStateTable|stateStoreFromUrl)|archive/keys/secretsManagerTokenKey|archive/digest/kmsDigestSigner|analytics/detect/dynamoFindingLedger|integrity/verify/s3ChecksumJobs)[.]ts$',
      },
      { path: '@aws-sdk/' },
    ),
    rule(
      'no-module-cycles',
      'no file reaches itself through its imports',
      { path: '^(lib|functions|devkit|bench|test|tools)/' },
      { circular: true },
    ),
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6', 'cjs'],
    tsPreCompilationDeps: true,
  },
};
