import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../support/repo-root.ts'

// `npm run lint:layer-types` passes on the real tree; these trees lean on an
// augmentation from a layer above (which no import shows, so depcruise
// passes them) and the same script must refuse them. Each tree is written
// to a scratch folder laid out like the repository (the layer rules match
// `shared/log/...`) and checked there with the repository's layer rules.

const script = join(repoRoot, 'test/lint/layer-types.ts')
const scratch: string[] = []
afterAll(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true })
})

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    strict: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    types: [],
  },
}

/** The log's registry of codes, as shared/log/error-brand.ts keeps it. */
const REGISTRY = {
  'shared/log/error-brand.ts':
    '// biome-ignore lint/suspicious/noEmptyInterface: augmented\nexport interface A2Codes {}\nexport type A2Code = keyof A2Codes & string\n',
  'shared/log/errors.ts':
    "declare module './error-brand.ts' {\n  interface A2Codes {\n    APPEND_CONFLICT: { expectedIndex: number }\n  }\n}\nexport {}\n",
  'shared/runtime/scheduler.ts':
    "declare module '../log/error-brand.ts' {\n  interface A2Codes {\n    TIMER_CONFLICT: undefined\n  }\n}\nexport {}\n",
}

async function check(files: Record<string, string>): Promise<{ exitCode: number; output: string }> {
  const folder = mkdtempSync(join(tmpdir(), 'a2-layer-types-'))
  scratch.push(folder)
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify(TSCONFIG))
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true })
    writeFileSync(join(folder, path), source)
  }
  return promisify(execFile)(
    process.execPath,
    [script, '--config', join(repoRoot, '.dependency-cruiser.cjs')],
    { cwd: folder },
  ).then(
    ({ stdout, stderr }) => ({ exitCode: 0, output: stdout + stderr }),
    (error: { stdout: string; stderr: string; code: number }) => ({
      exitCode: error.code,
      output: error.stdout + error.stderr,
    }),
  )
}

describe('the per-layer type-check (test/lint/layer-types.ts)', () => {
  it('refuses a layer that names a code only a layer above declares, which no import shows', async () => {
    const { exitCode, output } = await check({
      ...REGISTRY,
      // The HTTP edge's status table naming the runtime's code: it imports
      // only the log, so no import rule sees it lean on the runtime.
      'shared/http/statuses.ts':
        "import type { A2Code } from '../log/error-brand.ts'\nexport const STATUS: Partial<Record<A2Code, number>> = { APPEND_CONFLICT: 409, TIMER_CONFLICT: 409 }\n",
    })
    expect(exitCode).not.toBe(0)
    expect(output).toMatch(/✘ http does not type-check with only the layers it may import/)
    expect(output).toMatch(/shared\/http\/statuses\.ts.*TS2353.*TIMER_CONFLICT/)
    // The layers the code comes from check alone, and so does the log.
    expect(output).toMatch(/✔ runtime type-checks alone/)
    expect(output).toMatch(/✔ log type-checks alone/)
  }, 120_000)

  it('refuses a layer that reads the details of a code declared above it', async () => {
    const { exitCode, output } = await check({
      ...REGISTRY,
      'shared/model/retry.ts':
        "import type { A2Codes } from '../log/error-brand.ts'\nexport const retryAt = (details: A2Codes['CLAIM_HELD']) => details.retryAt\n",
      'shared/stores/claims.ts':
        "declare module '../log/error-brand.ts' {\n  interface A2Codes {\n    CLAIM_HELD: { retryAt: number }\n  }\n}\nexport {}\n",
    })
    expect(exitCode).not.toBe(0)
    expect(output).toMatch(/✘ model does not type-check/)
    expect(output).toMatch(/shared\/model\/retry\.ts.*CLAIM_HELD/)
    expect(output).toMatch(/✔ stores type-checks alone/)
  }, 120_000)

  it('passes a tree whose layers name only their own codes and those below them', async () => {
    const { exitCode, output } = await check({
      ...REGISTRY,
      'shared/http/statuses.ts':
        "import type { A2Code } from '../log/error-brand.ts'\nexport const STATUS: Partial<Record<A2Code, number>> = { APPEND_CONFLICT: 409 }\n",
      // The agent may import the runtime: its table names the runtime's code.
      'shared/agent/statuses.ts':
        "import type { A2Code } from '../log/error-brand.ts'\nexport const STATUS: Partial<Record<A2Code, number>> = { TIMER_CONFLICT: 409 }\n",
    })
    expect(output).not.toMatch(/✘/)
    expect(exitCode).toBe(0)
    expect(output).toMatch(/✔ agent type-checks alone \(1 files\)/)
  }, 120_000)
})
