/**
 * The layers of lib/, lowest first. A folder may import its own layer's files and any lower layer's,
 * never a higher one: so no two folders import each other, and each rule below names the layer it guards.
 * `npm test` runs it (`npm run layers`); a change that breaks a layer fails with the rule's name.
 */
const LAYERS = [
  ['errors', ['errors']],
  ['foundation', ['clock', 'log', 'url', 'util']],
  ['data', ['records', 'store', 'state']],
  ['io', ['upstream', 'parquet', 'emulator']],
  ['commit', ['commit']],
  ['digest', ['digest']],
  ['features', ['keys', 'active']],
  ['engine', ['engine']],
  ['tools', ['verify', 'query', 'config']],
  ['ocsf', ['ocsf']],
  ['detect', ['detect']],
  ['cli', ['cli']],
];

const folders = (list) => `^lib/(${list.join('|')})/`;

const layerRules = LAYERS.slice(0, -1).map(([name, own], i) => {
  const higher = LAYERS.slice(i + 1).flatMap(([, f]) => f);
  return {
    name: `layer-${name}`,
    comment: `lib/{${own.join(',')}} is the ${name} layer: it must not import a higher layer (${higher.join(', ')})`,
    severity: 'error',
    from: { path: folders(own) },
    to: { path: folders(higher) },
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
          '^lib/(store/(s3ObjectStore|objectStoreFromUrl)|state/(dynamoStateStore|dynamoVersionedItems|ensureStateTable|stateStoreFromUrl|legacyLocalItems)|digest/kmsDigestSigner|detect/dynamoFindingLedger)[.]ts$',
      },
      to: { path: '@aws-sdk/' },
    },
    {
      name: 'no-module-cycles',
      comment: 'no file reaches itself through its imports',
      severity: 'error',
      from: { path: '^lib/' },
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
