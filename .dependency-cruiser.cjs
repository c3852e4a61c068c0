/**
 * The layers of lib/, lowest first, and the rules of the folders around it (functions/, devkit/, bench/, test/).
 * A lib folder may import its own layer's files and any lower layer's, never a higher one: so no two
 * folders import each other, and each rule below names the layer it guards. Every lib folder belongs
 * to a layer (a new folder fails until it is placed). `npm test` runs it (`npm run layers`); a change
 * that breaks a rule fails with the rule's name.
 */
const LAYERS = [
  ['errors', ['errors']],
  ['foundation', ['clock', 'log', 'url', 'ids', 'process', 'concurrency', 'fingerprint', 'sql']],
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
  ['tools', ['verify', 'query', 'status']],
  ['ocsf', ['ocsf']],
  ['views', ['report', 'detect']],
  ['cli', ['cli']],
];

const folders = (list) => `^lib/(${list.join('|')})/`;

/**
 * The one file a lower layer may import from a higher one: the digest's intake (META's notes of the files
 * the next digest lists) is written by the committer as it commits; it imports nothing above lib/state.
 */
const DOWNWARD_INTAKE = '^lib/digest/pendingDigest[.]ts$';

/**
 * A feature's state items, declared once beside the feature (zod schema, type inferred from it): the state
 * store reads and writes them through these schemas, so lib/state imports them. They import nothing above
 * lib/state (rule `feature-state-items-stay-low`).
 */
const FEATURE_STATE_ITEMS = '^lib/(active/activeState|verify/verifyProgress|digest/digestState)[.]ts$';

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
  from: { path: `^lib/(${own.join('|')})/` },
  to: { path: `^lib/(${own.join('|')})/`, pathNot: '^lib/$1/' },
}));

/** A forbidden dependency: every rule of this file is an error, named in the message of what breaks it. */
const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

module.exports = {
  forbidden: [
    ...layerRules,
    ...sameLayerRules,
    rule(
      'digest-intake-stays-low',
      "lib/digest/pendingDigest.ts, which the committer imports, imports nothing above lib/state but the features' state items",
      { path: DOWNWARD_INTAKE },
      { path: folders(LAYERS.slice(3).flatMap(([, f]) => f)), pathNot: FEATURE_STATE_ITEMS },
    ),
    rule(
      'feature-state-items-stay-low',
      "a feature's state items (lib/active/activeState.ts, lib/verify/verifyProgress.ts, lib/digest/digestState.ts), which the state store imports, import nothing above lib/state",
      { path: FEATURE_STATE_ITEMS },
      { path: folders(LAYERS.slice(3).flatMap(([, f]) => f)) },
    ),
    rule(
      'fanout-through-run-stages',
      "lib/fanout/ shares the run's stages through lib/run/runStages.ts (and the run's types), not through the run's other files",
      { path: '^lib/fanout/' },
      { path: '^lib/run/', pathNot: '^lib/run/(runStages|runTypes)[.]ts$' },
    ),
    rule(
      'lib-folder-in-a-layer',
      'every folder of lib/ is placed in LAYERS (a file of an unplaced folder imports or is imported)',
      {},
      { path: '^lib/', pathNot: folders(LAYERS.flatMap(([, f]) => f)) },
    ),
    rule(
      'lib-folder-in-a-layer-importing',
      'every folder of lib/ is placed in LAYERS',
      { path: '^lib/', pathNot: folders(LAYERS.flatMap(([, f]) => f)) },
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
          '^lib/(store/(s3ObjectStore|objectStoreFromUrl)|state/(dynamoStateStore|dynamoVersionedItems|ensureStateTable|stateStoreFromUrl)|keys/secretsManagerTokenKey|digest/kmsDigestSigner|detect/dynamoFindingLedger|verify/s3ChecksumJobs)[.]ts$',
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
