/**
 * The layers of lib/, lowest first, and the rules of the folders around it (functions/, bench/, test/).
 * A lib folder may import its own layer's files and any lower layer's, never a higher one: so no two
 * folders import each other, and each rule below names the layer it guards. Every lib folder belongs
 * to a layer (a new folder fails until it is placed). `npm test` runs it (`npm run layers`); a change
 * that breaks a rule fails with the rule's name.
 */
const LAYERS = [
  ['errors', ['errors']],
  ['foundation', ['clock', 'log', 'url', 'ids', 'process', 'concurrency', 'fingerprint']],
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
  ['views', ['report', 'detect']],
  ['cli', ['cli']],
];

const folders = (list) => `^lib/(${list.join('|')})/`;

/**
 * The one file a lower layer may import from a higher one: the digest's intake (META's notes of the files
 * the next digest lists) is written by the committer as it commits; it imports nothing above lib/state.
 */
const DOWNWARD_INTAKE = '^lib/digest/pendingDigest[.]ts$';

const layerRules = LAYERS.slice(0, -1).map(([name, own], i) => {
  const higher = LAYERS.slice(i + 1).flatMap(([, f]) => f);
  return {
    name: `layer-${name}`,
    comment: `lib/{${own.join(',')}} is the ${name} layer: it must not import a higher layer (${higher.join(', ')})`,
    severity: 'error',
    from: { path: folders(own) },
    to: { path: folders(higher), pathNot: DOWNWARD_INTAKE },
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

module.exports = {
  forbidden: [
    ...layerRules,
    ...sameLayerRules,
    {
      name: 'digest-intake-stays-low',
      comment: 'lib/digest/pendingDigest.ts, which the committer imports, imports nothing above lib/state',
      severity: 'error',
      from: { path: DOWNWARD_INTAKE },
      to: { path: folders(LAYERS.slice(3).flatMap(([, f]) => f)) },
    },
    {
      name: 'fanout-through-run-stages',
      comment:
        "lib/fanout/ shares the run's stages through lib/run/runStages.ts (and the run's types), not through the run's other files",
      severity: 'error',
      from: { path: '^lib/fanout/' },
      to: { path: '^lib/run/', pathNot: '^lib/run/(runStages|runTypes)[.]ts$' },
    },
    {
      name: 'lib-folder-in-a-layer',
      comment:
        'every folder of lib/ is placed in LAYERS (a file of an unplaced folder imports or is imported)',
      severity: 'error',
      from: {},
      to: { path: '^lib/', pathNot: folders(LAYERS.flatMap(([, f]) => f)) },
    },
    {
      name: 'lib-folder-in-a-layer-importing',
      comment: 'every folder of lib/ is placed in LAYERS',
      severity: 'error',
      from: { path: '^lib/', pathNot: folders(LAYERS.flatMap(([, f]) => f)) },
      to: {},
    },
    {
      name: 'function-folders-apart',
      comment:
        'a function folder holds its handler: it imports lib/ and functions/shared/, never another function folder; functions/shared/ imports no function folder',
      severity: 'error',
      from: { path: '^functions/([^/]+)/' },
      to: { path: '^functions/', pathNot: '^functions/($1|shared)/' },
    },
    {
      name: 'functions-below-infra',
      comment: 'the handlers never import the CDK app, the bench, the tests or the bin scripts',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(infra|bench|test|bin|tools)/' },
    },
    {
      name: 'bench-imports-no-test',
      comment:
        "the bench may use the tests' kits (test/support/ and the helpers beside the tests), never a test file",
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/.*[.]test[.]ts$' },
    },
    {
      name: 'bench-below-its-tests',
      comment:
        "only the bench's own tests (test/bench/) and the doc figures it produces (test/docs/) import bench/",
      severity: 'error',
      from: { path: '^test/', pathNot: '^test/(bench|docs)/' },
      to: { path: '^bench/' },
    },
    {
      name: 'test-files-import-no-test-file',
      comment:
        'a test file is imported by nobody: shared setup lives in a kit (test/support/ or a helper beside the tests)',
      severity: 'error',
      from: {},
      to: { path: '[.]test[.]ts$' },
    },
    {
      name: 'entry-points-above-tools',
      comment:
        'lib/, functions/, bench/ and test/ never import the profiling tools (tools/), but their own tests (test/tools/)',
      severity: 'error',
      from: { path: '^(lib|functions|bench|test)/', pathNot: '^test/tools/' },
      to: { path: '^tools/' },
    },
    {
      name: 'lib-below-entry-points',
      comment: 'lib/ is the core: it never imports the Lambda handlers, the CDK app, the bench or the tests',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(functions|infra|bench|test)/' },
    },
    {
      name: 'aws-sdk-only-in-adapters',
      comment: 'the AWS SDK is used only by the adapters that speak to AWS (and the handlers outside lib/)',
      severity: 'error',
      from: {
        path: '^lib/',
        pathNot:
          '^lib/(store/(s3ObjectStore|objectStoreFromUrl)|state/(dynamoStateStore|dynamoVersionedItems|ensureStateTable|stateStoreFromUrl)|digest/kmsDigestSigner|detect/dynamoFindingLedger)[.]ts$',
      },
      to: { path: '@aws-sdk/' },
    },
    {
      name: 'no-module-cycles',
      comment: 'no file reaches itself through its imports',
      severity: 'error',
      from: { path: '^(lib|functions|bench|test|tools)/' },
      to: { circular: true },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6', 'cjs'],
    tsPreCompilationDeps: true,
  },
};
