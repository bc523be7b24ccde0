// The layer rules (`npm run lint:layers`, part of `npm test`), read with
// docs/architecture.md, which draws them. Type-only imports count here: a
// type that points upward is a dependency upward all the same (the log's
// errors once imported the codes of four layers above it). What a browser
// loads when it runs is checked on the compiled graph instead, in
// .dependency-cruiser-browser.cjs.

const { builtinModules } = require('node:module')

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

/**
 * What counts as I/O: Node's own modules (`node:fs` is cruised as `fs`;
 * `node:test` and the other prefix-only ones keep their prefix) and the
 * packages that reach the network, a queue or a server: the AWS SDK, the
 * Smithy runtime under it, Powertools and Hono.
 */
const NODE_BUILTINS = [`^(${builtinModules.join('|')})(/|$)`, '^node:']
const IO_PACKAGES = '(^|/)node_modules/(@aws-sdk|@aws-lambda-powertools|@smithy|hono|@hono)/'

/**
 * The I/O each part of the project may load, type-only imports included,
 * tightened to what each loads today: `node:<name>` is that one module
 * (`node:fs` is not `node:fs/promises`), `node:*` every one, a package
 * name that package (`@aws-sdk/*`: every AWS client). `null`: anything.
 * A file of shared/, functions/ or infra/ that no row covers loads none.
 * docs/architecture.md lists this table.
 */
const IO = {
  // The pure core (principle 5): folds and decisions over events, with the
  // store, the clock and the queues passed in, that a browser can load.
  log: { path: '^shared/log/', may: [] },
  timing: { path: '^shared/timing/', may: [] },
  model: { path: '^shared/model/', may: [] },
  // The fetch endpoint runs on fetch and Web streams; only the session
  // capabilities, HMACs computed synchronously, use node:crypto
  // (session-capability.ts).
  http: { path: '^shared/http/', may: ['node:crypto'] },
  // The handler context is an AsyncLocalStorage (handler-context-storage.ts).
  runtime: { path: '^shared/runtime/', may: ['node:async_hooks'] },
  // What both stores share: the payload codec gzips large payloads.
  stores: { path: '^shared/stores/[^/]+$', may: ['node:zlib'] },
  'memory-store': { path: '^shared/stores/memory/', may: [] },
  'dynamodb-store': {
    path: '^shared/stores/dynamodb/',
    may: ['@aws-sdk/client-dynamodb', 'node:crypto'],
  },
  // agent() reaches the world only through the ports it is given.
  agent: { path: '^shared/agent/', may: [] },
  'pi-harness': { path: '^shared/harness/pi/', may: [] },
  // FX spawns its ACP agent and speaks to it over the child's pipes.
  'fx-harness': { path: '^shared/harness/fx/', may: ['node:child_process', 'node:stream'] },
  client: { path: '^shared/client/', may: [] },
  react: { path: '^shared/react/', may: [] },
  // The AWS adapter: the clients, Powertools, and Lambda's response streams.
  aws: {
    path: '^shared/aws/',
    may: [
      '@aws-sdk/*',
      '@aws-lambda-powertools/*',
      'node:stream',
      'node:stream/promises',
      'node:stream/web',
    ],
  },
  // The Node adapter: Node's HTTP server, by way of Hono's, and the disk.
  node: { path: '^shared/node/', may: ['node:*', '@hono/node-server'] },
  entries: { path: '^shared/index[.]ts$|^shared/ai[.]ts$', may: [] },
  // The doubles fake the AWS services they stand in for rather than call
  // them: the Bedrock double frames its stream with Smithy's codec.
  testing: {
    path: '^shared/testing/',
    may: ['node:async_hooks', 'node:crypto', 'node:util', '@smithy/eventstream-codec'],
  },
  // The application: the Lambda entry point, the CLI, the local runner.
  functions: { path: '^functions/', may: null },
  // The CDK app bundles the functions from their paths; CDK does the rest.
  infra: { path: '^infra/', may: ['node:fs', 'node:path', 'node:url'] },
}

const literal = (text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
/** The cruise's name for an allowed I/O module, as a pattern. */
const ioPattern = (name) => {
  if (name === 'node:*') return NODE_BUILTINS
  if (name.startsWith('node:')) return `^(node:)?${literal(name.slice('node:'.length))}$`
  return `(^|/)node_modules/${literal(name).replace('*', '[^/]+')}/`
}

/** One rule per row of IO: it loads no I/O but its own. */
const ioRules = Object.entries(IO)
  .filter(([, part]) => part.may !== null)
  .map(([name, part]) => ({
    name: `${name}-loads-${part.may.length === 0 ? 'no-io' : `only-${part.may.join('+')}`}`,
    comment:
      part.may.length === 0
        ? `${part.path} loads none of Node's modules or the I/O packages`
        : `Of Node's modules and the I/O packages, ${part.path} loads only ${part.may.join(', ')}`,
    severity: 'error',
    from: { path: part.path },
    to: { path: [...NODE_BUILTINS, IO_PACKAGES], pathNot: part.may.flatMap(ioPattern) },
  }))

module.exports = {
  forbidden: [
    ...layerRules,
    ...modelOrderRules,
    ...typeOnlyRules,
    ...ioRules,
    {
      name: 'unlisted-loads-no-io',
      comment: 'A file no row of IO covers loads no I/O: a new folder gets a row.',
      severity: 'error',
      from: { path: PROJECT, pathNot: Object.values(IO).map((part) => part.path) },
      to: { path: [...NODE_BUILTINS, IO_PACKAGES] },
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
