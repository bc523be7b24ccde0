import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import packageJson from './package.json' with { type: 'json' }

// Samples and tests import the package by its own name (`a2-aws/ai/server`);
// point each entry point at its source, as the `a2-source` condition does
// for TypeScript.
const selfReferences = Object.entries(packageJson.exports)
  .filter(([, target]) => typeof target === 'object' && 'a2-source' in target)
  .map(([entry, target]) => ({
    find: new RegExp(`^a2-aws${entry.slice(1).replace(/[/.]/g, '\\$&')}$`),
    replacement: fileURLToPath(
      new URL((target as { 'a2-source': string })['a2-source'], import.meta.url),
    ),
  }))

// Four projects: `unit` runs in parallel with no outside services; `integration`
// runs against an AWS-compatible endpoint (a moto server started by the global
// setup, or A2_TEST_ENDPOINT), one file at a time because the single-threaded
// moto server is shared and reset between suites; `browser` drives Debian's
// Chromium (/usr/bin/chromium) against the example chat page, built by its
// global setup; `package` packs and installs the package (`npm run test:package`).
export default defineConfig({
  resolve: { conditions: ['a2-source'], alias: selfReferences },
  test: {
    // .ci/run asks for a JSON report too, to print one plain closing line.
    ...(process.env.A2_TEST_REPORT
      ? { reporters: ['default', 'json'], outputFile: { json: process.env.A2_TEST_REPORT } }
      : {}),
    projects: [
      {
        resolve: { conditions: ['a2-source'], alias: selfReferences },
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [
            'test/integration/**',
            'test/browser/**',
            'test/package/install/**',
            'node_modules/**',
          ],
        },
      },
      {
        resolve: { conditions: ['a2-source'], alias: selfReferences },
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/aws-endpoint-global-setup.ts'],
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // `npm run test:package`: packs the project and installs the tarball
        // into a scratch project (a few minutes: it builds dist/ and runs npm).
        test: {
          name: 'package',
          include: ['test/package/install/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 900_000,
        },
      },
      {
        resolve: { conditions: ['a2-source'], alias: selfReferences },
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
