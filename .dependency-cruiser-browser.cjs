// What the browser entries load when they run (`npm run lint:layers`). The
// graph is the compiled one: a type-only import loads nothing, so the client
// may name the server's types (see .dependency-cruiser.cjs) and stay out of
// Node.

const { builtinModules } = require('node:module')

/**
 * The package's browser entries (`a2-aws/ai/client`, `a2-aws/ai/react`,
 * `a2-aws/ai`, isomorphic) and the example chat page built on them.
 */
const BROWSER_ENTRIES = [
  'shared/ai.ts',
  'shared/client/index.ts',
  'shared/react/index.ts',
  'functions/example/web/main.tsx',
]

/** Node's own modules, as the cruise names them (`node:fs` resolves to `fs`). */
const NODE_MODULES = `^(node:)?(${builtinModules.join('|')})(/|$)`

module.exports = {
  forbidden: [
    {
      name: 'browser-loads-no-node',
      comment:
        'A browser has no Node: a module the browser entries reach may not load node:* (or its bare names).',
      severity: 'error',
      from: { path: BROWSER_ENTRIES.map((entry) => `^${entry.replaceAll('.', '[.]')}$`) },
      to: { reachable: true, path: NODE_MODULES },
    },
    {
      name: 'browser-loads-no-aws-or-server',
      comment:
        'Nor the AWS SDK, Powertools or an HTTP server: they are server code, and would swell the bundle if they bundled at all.',
      severity: 'error',
      from: { path: BROWSER_ENTRIES.map((entry) => `^${entry.replaceAll('.', '[.]')}$`) },
      to: {
        reachable: true,
        path: 'node_modules/(@aws-sdk|@aws-lambda-powertools|@smithy|hono|@hono)/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['a2-source', 'import', 'browser', 'default'],
      extensions: ['.ts', '.tsx', '.js'],
    },
  },
}
