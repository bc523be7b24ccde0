import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../support/repo-root.ts'

// `npm run lint:layers` passes on the real tree; these trees break each rule
// on purpose and the same configurations must refuse them (and pass a tree
// that keeps them). Each tree is written to a scratch folder laid out like
// the repository (the rules match `shared/log/...`), and cruised there by
// the same command.

const depcruise = join(repoRoot, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs')
const scratch: string[] = []
afterAll(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true })
})

interface Cruise {
  /** Non-zero when the check fails, as `npm test` sees it. */
  exitCode: number
  /** What it refused, as `rule: from → to`. */
  violations: string[]
}

/** Cruises `files` (path → source) with `config`, as `npm run lint:layers` does. */
async function cruise(config: string, files: Record<string, string>): Promise<Cruise> {
  const folder = mkdtempSync(join(tmpdir(), 'a2-layers-'))
  scratch.push(folder)
  writeFileSync(join(folder, 'tsconfig.json'), '{}')
  // The packages a rule names resolve as they do in the repository.
  symlinkSync(join(repoRoot, 'node_modules'), join(folder, 'node_modules'))
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true })
    writeFileSync(join(folder, path), source)
  }
  const roots = [...new Set(Object.keys(files).map((path) => path.split('/')[0] as string))]
  const run = (output: string) =>
    promisify(execFile)(
      process.execPath,
      [depcruise, '--config', join(repoRoot, config), '-T', output, ...roots],
      { cwd: folder },
    ).then(
      ({ stdout }) => ({ stdout, code: 0 }),
      (error: { stdout: string; code: number }) => error,
    )
  // `err` is the report `npm run lint:layers` prints, and the one whose exit
  // code fails it; `json` lists the violations (and always exits 0).
  const [check, json] = await Promise.all([run('err'), run('json')])
  const report = JSON.parse(json.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] }
  }
  return {
    exitCode: check.code,
    violations: report.summary.violations.map(
      ({ rule, from, to }) => `${rule.name}: ${from} → ${to}`,
    ),
  }
}

describe('the layer rules (.dependency-cruiser.cjs)', () => {
  it('refuse the log importing another layer (a type too), a cycle, I/O in the pure core, server code in the client, an import that resolves to nothing', async () => {
    const { exitCode, violations } = await cruise('.dependency-cruiser.cjs', {
      'shared/log/errors.ts':
        "import type { HttpCode } from '../http/codes.ts'\nexport type C = HttpCode\n",
      'shared/http/codes.ts': "export type HttpCode = 'FORBIDDEN'\n",
      'shared/log/a.ts': "import type { B } from './b.ts'\nexport type A = B\n",
      'shared/log/b.ts': "import type { A } from './a.ts'\nexport type B = A | 1\n",
      'shared/log/size.ts': "import { gzipSync } from 'node:zlib'\nexport const size = gzipSync\n",
      'shared/model/controller/decide.ts':
        "import { readFileSync } from 'node:fs'\nimport { put } from '../../stores/put.ts'\nexport const decide = () => [readFileSync, put]\n",
      'shared/stores/put.ts': 'export const put = 1\n',
      'shared/model/state/fold.ts':
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'\nexport const fold = DynamoDBClient\n",
      'shared/client/session.ts':
        "import type { Agent } from '../agent/wiring/agent.ts'\nimport { run } from '../agent/run.ts'\nexport const session = (agent: Agent) => [agent, run]\n",
      'shared/agent/wiring/agent.ts': 'export interface Agent { name: string }\n',
      'shared/agent/run.ts': "import { gone } from './gone.ts'\nexport const run = gone\n",
    })
    expect(exitCode).not.toBe(0)
    expect(violations).toEqual(
      expect.arrayContaining([
        'log-imports-only-itself: shared/log/errors.ts → shared/http/codes.ts',
        'no-cycles: shared/log/a.ts → shared/log/b.ts',
        'log-loads-no-io: shared/log/size.ts → zlib',
        'model-loads-no-io: shared/model/controller/decide.ts → fs',
        'model-imports-only-log: shared/model/controller/decide.ts → shared/stores/put.ts',
        // The scratch folder's node_modules is a link to the repository's.
        expect.stringMatching(
          /^model-loads-no-io: shared\/model\/state\/fold\.ts → .*node_modules\/@aws-sdk\/client-dynamodb\//,
        ),
        'client-imports-only-types-of-http+agent: shared/client/session.ts → shared/agent/run.ts',
        'resolvable: shared/agent/run.ts → ./gone.ts',
      ]),
    )
    // The client may name the server's types: that import loads nothing.
    expect(violations.filter((line) => line.endsWith('shared/agent/wiring/agent.ts'))).toEqual([])
  }, 60_000)

  it('refuse the model out of its order, and I/O a part’s row does not allow: the SDK in the agent or the memory store, node:fs in the HTTP edge or a folder with no row', async () => {
    const { exitCode, violations } = await cruise('.dependency-cruiser.cjs', {
      'shared/model/state/fold.ts':
        "import { decide } from '../controller/decide.ts'\nexport const fold = decide\n",
      'shared/model/controller/decide.ts': 'export const decide = 1\n',
      'shared/agent/lanes/lane.ts':
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'\nexport const lane = DynamoDBClient\n",
      'shared/http/endpoint.ts':
        "import { readFileSync } from 'node:fs'\nimport { createHmac } from 'node:crypto'\nexport const endpoint = [readFileSync, createHmac]\n",
      'shared/stores/memory/memory-event-store.ts':
        "import type { SQSClient } from '@aws-sdk/client-sqs'\nexport type Store = SQSClient\n",
      'shared/unlisted/files.ts':
        "import { readFile } from 'node:fs/promises'\nexport const files = readFile\n",
    })
    expect(exitCode).not.toBe(0)
    expect(violations).toEqual(
      expect.arrayContaining([
        'model-state-imports-only-ids+events: shared/model/state/fold.ts → shared/model/controller/decide.ts',
        expect.stringMatching(
          /^agent-loads-no-io: shared\/agent\/lanes\/lane\.ts → .*node_modules\/@aws-sdk\/client-dynamodb\//,
        ),
        'http-loads-only-node:crypto: shared/http/endpoint.ts → fs',
        expect.stringMatching(
          /^memory-store-loads-no-io: shared\/stores\/memory\/memory-event-store\.ts → .*node_modules\/@aws-sdk\/client-sqs\//,
        ),
        'unlisted-loads-no-io: shared/unlisted/files.ts → fs/promises',
      ]),
    )
    // What the HTTP edge's row allows, it may load.
    expect(violations.filter((line) => line.endsWith(' → crypto'))).toEqual([])
  }, 60_000)

  it('pass a tree that keeps them: the core on the log, the server on both and a store, the client on the server’s types, the model in its order, the SDK in the DynamoDB store and the AWS adapter', async () => {
    const { exitCode, violations } = await cruise('.dependency-cruiser.cjs', {
      'shared/log/event.ts': 'export interface StoredEvent { type: string }\n',
      'shared/model/state/fold.ts':
        "import type { StoredEvent } from '../../log/event.ts'\nexport const fold = (event: StoredEvent) => event.type\n",
      'shared/stores/memory.ts': 'export const memory = 1\n',
      'shared/agent/wiring/agent.ts':
        "import { fold } from '../../model/state/fold.ts'\nimport { memory } from '../../stores/memory.ts'\nexport const agent = [fold, memory]\n",
      'shared/client/session.ts':
        "import type { agent } from '../agent/wiring/agent.ts'\nexport type Agent = typeof agent\n",
      // The model in its order; each part loading the I/O its row allows.
      'shared/model/controller/decide.ts':
        "import { fold } from '../state/fold.ts'\nexport const decide = fold\n",
      'shared/http/capability.ts':
        "import { createHmac } from 'node:crypto'\nexport const sign = createHmac\n",
      'shared/stores/dynamodb/store.ts':
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'\nexport const store = DynamoDBClient\n",
      'shared/aws/dispatcher.ts':
        "import { SQSClient } from '@aws-sdk/client-sqs'\nexport const dispatcher = SQSClient\n",
      'shared/node/serve.ts':
        "import { createServer } from 'node:http'\nimport { serve } from '@hono/node-server'\nexport const servers = [createServer, serve]\n",
    })
    expect(violations).toEqual([])
    expect(exitCode).toBe(0)
  }, 60_000)
})

describe('the browser rules (.dependency-cruiser-browser.cjs)', () => {
  it('refuse a browser entry that reaches node:* or the AWS SDK, but not a type-only import of them', async () => {
    const { exitCode, violations } = await cruise('.dependency-cruiser-browser.cjs', {
      'shared/client/index.ts':
        "export { read } from './read.ts'\nexport type { Hash } from './hash.ts'\n",
      'shared/client/read.ts':
        "import { readFileSync } from 'node:fs'\nimport { SQSClient } from '@aws-sdk/client-sqs'\nexport const read = [readFileSync, SQSClient]\n",
      'shared/client/hash.ts': "import type { Hash } from 'node:crypto'\nexport type { Hash }\n",
      'shared/react/index.ts': "export const useAgent = () => 'fine'\n",
    })
    expect(exitCode).not.toBe(0)
    expect(violations).toEqual(
      expect.arrayContaining([
        'browser-loads-no-node: shared/client/index.ts → fs',
        expect.stringMatching(
          /^browser-loads-no-aws-or-server: shared\/client\/index\.ts → .*node_modules\/@aws-sdk\/client-sqs\//,
        ),
      ]),
    )
    expect(violations.filter((line) => line.includes('crypto'))).toEqual([])
    expect(violations.filter((line) => line.includes('shared/react/'))).toEqual([])
  }, 60_000)
})

describe('the harness layer (.dependency-cruiser.cjs)', () => {
  it('refuses the agent importing a harness adapter (a type too), and passes an adapter on the agent’s port', async () => {
    const { exitCode, violations } = await cruise('.dependency-cruiser.cjs', {
      'shared/agent/harness/harness.ts': 'export interface Harness { type: string }\n',
      'shared/agent/harness/harness-of.ts':
        "import { fxHarness } from '../../harness/fx/fx-harness.ts'\nimport type { PiTool } from '../../harness/pi/pi-tools.ts'\nexport const of = (tool: PiTool) => [fxHarness, tool]\n",
      'shared/harness/fx/fx-harness.ts':
        "import type { Harness } from '../../agent/harness/harness.ts'\nexport const fxHarness = (harness: Harness) => harness\n",
      'shared/harness/pi/pi-tools.ts': 'export interface PiTool { name: string }\n',
    })
    expect(exitCode).not.toBe(0)
    expect(violations).toEqual([
      'agent-imports-only-log+timing+http+runtime+stores+model: shared/agent/harness/harness-of.ts → shared/harness/fx/fx-harness.ts',
      'agent-imports-only-log+timing+http+runtime+stores+model: shared/agent/harness/harness-of.ts → shared/harness/pi/pi-tools.ts',
    ])
  }, 60_000)
})
