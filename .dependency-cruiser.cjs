// The layer rules (`npm run lint:layers`, part of `npm test`), read with
// docs/architecture.md, which draws them. Type-only imports count here: a
// type that points upward is a dependency upward all the same (the log's
// errors once imported the codes of four layers above it). What a browser
// loads when it runs is checked on the compiled graph instead, in
// .dependency-cruiser-browser.cjs.

/**
 * The layers, lowest first, and the layers each may import besides its own
 * files. `types`: layers it may know the types of, never load. Anything
 * else in shared/, functions/ or infra/ is out of bounds. The folders are
 * this table (docs/architecture.md draws it).
 */
const LAYERS = {
  log: { path: '^shared/log/', may: [] },
  timing: { path: '^shared/timing/', may: [] },
  model: { path: '^shared/model/', may: ['log'] },
  http: { path: '^shared/http/', may: ['log'] },
  runtime: { path: '^shared/runtime/', may: ['log', 'timing'] },
  stores: { path: '^shared/stores/', may: ['log', 'timing'] },
  agent: {
    path: '^shared/agent/',
    may: ['log', 'timing', 'http', 'runtime', 'stores', 'model'],
  },
  // The adapters of loops other than the AI SDK's (Pi, FX), each behind an
  // entry of its own: on the agent's Harness port, and never imported by
  // the agent, so `agent()` loads none of them unless asked.
  harness: {
    path: '^shared/harness/',
    may: ['log', 'timing', 'runtime', 'model', 'agent'],
  },
  client: {
    path: '^shared/client/',
    may: ['log', 'timing', 'model'],
    // A client infers its messages from an agent's type and reads the
    // server's error codes; it loads none of their code.
    types: ['http', 'agent'],
  },
  react: { path: '^shared/react/', may: ['log', 'model', 'client'] },
  aws: {
    path: '^shared/aws/',
    may: ['log', 'timing', 'http', 'runtime', 'stores', 'model', 'agent'],
  },
  node: { path: '^shared/node/', may: ['log', 'http'] },
  // The root and isomorphic entries re-export from the layers below them;
  // what they load is pinned by test/package/exports.test.ts.
  entries: {
    path: '^shared/index[.]ts$|^shared/ai[.]ts$',
    may: ['log', 'http', 'runtime', 'stores', 'model', 'agent'],
  },
  testing: {
    path: '^shared/testing/',
    may: [
      'log',
      'timing',
      'http',
      'runtime',
      'stores',
      'model',
      'agent',
      // The simulator's browsers run the client's SSE subscription.
      'client',
      'aws',
      'node',
      'entries',
    ],
  },
  functions: {
    path: '^functions/',
    may: [
      'log',
      'timing',
      'http',
      'runtime',
      'stores',
      'model',
      'agent',
      'client',
      'react',
      'aws',
      'node',
      'entries',
    ],
  },
  infra: {
    path: '^infra/',
    may: ['log', 'runtime', 'stores', 'model', 'agent', 'aws'],
  },
}

/**
 * The model's own order, lowest first: each folder imports only the ones
 * before it (the IDs name events, the state folds events, the controller
 * decides on the state, and so on up to the inspector, which reads them all).
 */
const MODEL_ORDER = [
  'ids',
  'events',
  'state',
  'contract',
  'controller',
  'inputs',
  'optimistic',
  'inspect',
]

const pathsOf = (names) => names.map((name) => LAYERS[name].path)
const PROJECT = '^(shared|functions|infra)/'

/** One rule per layer: it imports nothing of the project outside the layers it may. */
const layerRules = Object.entries(LAYERS).map(([name, layer]) => ({
  name: `${name}-imports-only-${layer.may.length === 0 ? 'itself' : layer.may.join('+')}`,
  comment: `${name} may import ${layer.may.join(', ') || 'no other layer'}${layer.types ? ` (and the types of ${layer.types.join(', ')})` : ''}`,
  severity: 'error',
  from: { path: layer.path },
  to: {
    path: PROJECT,
    pathNot: [layer.path, ...pathsOf(layer.may), ...pathsOf(layer.types ?? [])],
  },
}))

/** One rule per folder of the model: it imports only the folders before it. */
const modelOrderRules = MODEL_ORDER.map((name, rank) => ({
  name: `model-${name}-imports-only-${rank === 0 ? 'itself' : MODEL_ORDER.slice(0, rank).join('+')}`,
  comment: `shared/model/${name}/ comes after ${MODEL_ORDER.slice(0, rank).join(', ') || 'nothing'} in the model's order`,
  severity: 'error',
  from: { path: `^shared/model/${name}/` },
  to: {
    path: '^shared/model/',
    pathNot: `^shared/model/(${MODEL_ORDER.slice(0, rank + 1).join('|')})/`,
  },
}))

/** A layer that may know another's types must still not load its code. */
const typeOnlyRules = Object.entries(LAYERS)
  .filter(([, layer]) => layer.types)
  .map(([name, layer]) => ({
    name: `${name}-imports-only-types-of-${layer.types.join('+')}`,
    severity: 'error',
    from: { path: layer.path },
    to: { path: pathsOf(layer.types), dependencyTypesNot: ['type-only'] },
  }))

/** Node's own modules and the packages that do I/O (AWS, HTTP servers). */
const IO_PACKAGES = 'node_modules/(@aws-sdk|@aws-lambda-powertools|@smithy|hono|@hono)/'

/** The pure layers: the log and the conversation model. */
const PURE = [LAYERS.log.path, LAYERS.model.path]

module.exports = {
  forbidden: [
    ...layerRules,
    ...modelOrderRules,
    ...typeOnlyRules,
    {
      name: 'pure-core-no-io',
      comment:
        'The log and the conversation model (events, state, controller, inputs, contract, ...) are pure: folds and decisions over events, with the store, the clock and the queues passed in. They import no Node module, so nothing they reach does (they may import only each other), and a browser can load them.',
      severity: 'error',
      from: { path: PURE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'pure-core-no-io-packages',
      comment: 'See pure-core-no-io: no AWS SDK, Powertools or HTTP server either.',
      severity: 'error',
      from: { path: PURE },
      to: { path: IO_PACKAGES },
    },
    {
      name: 'no-cycles',
      comment:
        'A cycle (type-only ones too) ties its modules into one: none can be read, tested or moved without the others.',
      severity: 'error',
      from: { path: PROJECT },
      to: { circular: true },
    },
    {
      name: 'resolvable',
      comment: 'An import that resolves to nothing would hide from every rule above.',
      severity: 'error',
      from: { path: PROJECT },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Packages stay in the graph as leaves (the I/O rule names some), unread.
    exclude: { path: '^dist/|^functions/example/web/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The package imports itself by name (`a2-aws/ai/server`): resolved to
    // its sources, as vitest and tsc do with the `a2-source` condition.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['a2-source', 'import', 'types', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
}
