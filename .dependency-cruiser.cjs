// The layer rules (`npm run lint:layers`, part of `npm test`), read with
// docs/architecture.md, which draws them. Type-only imports count here: a
// type that points upward is a dependency upward all the same (the log's
// errors once imported the codes of four layers above it). What a browser
// loads when it runs is checked on the compiled graph instead, in
// .dependency-cruiser-browser.cjs.

/**
 * The layers, lowest first, and the layers each may import besides its own
 * files. `types`: layers it may know the types of, never load. Anything
 * else in shared/, functions/ or infra/ is out of bounds.
 */
const LAYERS = {
  log: { path: '^shared/log/', may: [] },
  timing: { path: '^shared/timing/', may: [] },
  http: { path: '^shared/http/', may: ['log'] },
  runtime: { path: '^shared/runtime/', may: ['log', 'timing'] },
  stores: { path: '^shared/stores/', may: ['log', 'timing'] },
  'ai-core': {
    path: '^shared/ai/(events|state|controller|inputs|contract|optimistic|inspect)/|^shared/ai/ids[.]ts$',
    may: ['log'],
  },
  'ai-server': {
    path: '^shared/ai/server/',
    may: ['log', 'timing', 'http', 'runtime', 'stores', 'ai-core'],
  },
  'ai-client': {
    path: '^shared/ai/client/',
    may: ['log', 'timing', 'ai-core'],
    // A client infers its messages from an agent's type and reads the
    // server's error codes; it loads none of their code.
    types: ['http', 'ai-server'],
  },
  'ai-react': { path: '^shared/ai/react/', may: ['log', 'ai-core', 'ai-client'] },
  aws: {
    path: '^shared/aws/',
    may: ['log', 'timing', 'http', 'runtime', 'stores', 'ai-core', 'ai-server'],
  },
  node: { path: '^shared/node/', may: ['log', 'http'] },
  // The root and isomorphic entries re-export from the layers below them;
  // what they load is pinned by test/package/exports.test.ts.
  entries: {
    path: '^shared/index[.]ts$|^shared/ai/index[.]ts$',
    may: ['log', 'http', 'runtime', 'stores', 'ai-core', 'ai-server'],
  },
  testing: {
    path: '^shared/testing/',
    may: [
      'log',
      'timing',
      'http',
      'runtime',
      'stores',
      'ai-core',
      'ai-server',
      // The simulator's browsers run the client's SSE subscription.
      'ai-client',
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
      'ai-core',
      'ai-server',
      'ai-client',
      'ai-react',
      'aws',
      'node',
      'entries',
    ],
  },
  infra: {
    path: '^infra/',
    may: ['log', 'runtime', 'stores', 'ai-core', 'ai-server', 'aws'],
  },
}

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
const PURE = [LAYERS.log.path, LAYERS['ai-core'].path]

module.exports = {
  forbidden: [
    ...layerRules,
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
