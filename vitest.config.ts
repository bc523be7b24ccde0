import { availableParallelism } from 'node:os'
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

// The test tree mirrors the source tree; a file's suffix says what it needs.
// Four projects: `unit` (`*.test.ts`) needs no outside service;
// `integration` (`*.integration.test.ts`) runs against an AWS-compatible
// endpoint; `browser` (`*.browser.test.ts`) drives Debian's Chromium
// (/usr/bin/chromium) against the example chat page, built by its global
// setup; `package` packs and installs the package (`npm run test:package`).
//
// unit, integration and browser run as one group of `workers` workers (one
// per core, at least two), so the files that mostly wait (on moto, on the
// browser) overlap with the ones that compute. Vitest's default on a 2-core
// machine is one worker, which left a core idle. One more worker than cores
// was 10% faster on a quiet machine, and timed tests out on a busy one. Integration files still never share a moto server: the
// global setup starts one per worker and a file uses its worker's
// (test/support/aws.ts), because a suite resets its server. Against
// LocalStack or AWS (A2_TEST_ENDPOINT), where every file shares one account
// and parallel files were never tried, integration files run one at a time,
// after the rest.
const workers = Math.min(4, Math.max(2, availableParallelism()))
const external = Boolean(process.env.A2_TEST_ENDPOINT)
export default defineConfig({
  resolve: { conditions: ['a2-source'], alias: selfReferences },
  test: {
    // .ci/run asks for a JSON report too, to print one plain closing line.
    maxWorkers: workers,
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
            'test/**/*.integration.test.ts',
            'test/**/*.browser.test.ts',
            'test/package/install/**',
            'node_modules/**',
          ],
          maxWorkers: workers,
          // Files in one worker share loaded modules: importing the AI SDK,
          // zod and the CDK once per worker instead of once per file saves a
          // third of the suite's CPU. Stubs are undone after every test.
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          // Two files share the cores: a CPU-bound test (a property run, a
          // synth, an import of the CDK) can take three times its time alone.
          testTimeout: 15_000,
        },
      },
      {
        resolve: { conditions: ['a2-source'], alias: selfReferences },
        test: {
          name: 'integration',
          include: ['test/**/*.integration.test.ts'],
          globalSetup: ['test/support/aws-endpoint-global-setup.ts'],
          ...(external ? { fileParallelism: false } : { maxWorkers: workers }),
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // `npm run test:package`: packs the project once (its global setup)
        // and follows docs/use-in-your-project.md with the tarball in scratch
        // projects, one per file (a few minutes: it builds dist/ and runs npm).
        test: {
          name: 'package',
          include: ['test/package/install/**/*.test.ts'],
          globalSetup: ['test/package/install/pack-global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 900_000,
        },
      },
      {
        resolve: { conditions: ['a2-source'], alias: selfReferences },
        test: {
          name: 'browser',
          include: ['test/**/*.browser.test.ts'],
          globalSetup: ['test/support/browser-global-setup.ts'],
          maxWorkers: workers,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
