import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { gatewayDouble } from '../../shared/testing/gateway-double.ts'
import { text } from '../../shared/testing/model-script.ts'
import { codeBlocks } from '../support/code-blocks.ts'

// The README's "From server code" block, run as written beside the tour's
// src/assistant.ts: what it prints is what its comment says. The model ID
// resolves to a Gateway double, and the catalog lookup that compaction
// makes goes to the double's catalog, so nothing leaves the machine.

const blocks = codeBlocks('README.md')
const assistantBlock = blocks.find((block) => block.file === 'src/assistant.ts')
const serverCode = blocks.find((block) => block.code.includes('assistant.runtime.idle()'))
const dir = mkdtempSync(join(tmpdir(), 'a2-readme-server-code-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("README.md's From server code block", () => {
  it('prints the user message and its answer: it waits with runtime.idle() before it reads the state', async () => {
    expect(assistantBlock && serverCode).toBeTruthy()
    const gateway = await gatewayDouble({ script: () => text('Hello there.') })
    const uninstall = gateway.install()
    const realFetch = globalThis.fetch
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
      realFetch(
        String(input) === 'https://ai-gateway.vercel.sh/v1/models' ? gateway.catalogUrl : input,
        init,
      ),
    )
    const printed: unknown[][] = []
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      printed.push(args)
    })
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'assistant.ts'), assistantBlock?.code ?? '')
    writeFileSync(join(dir, 'server-code.ts'), serverCode?.code ?? '')
    try {
      await import(/* @vite-ignore */ pathToFileURL(join(dir, 'server-code.ts')).href)
      const { assistant } = (await import(
        /* @vite-ignore */ pathToFileURL(join(dir, 'src', 'assistant.ts')).href
      )) as { assistant: { runtime: { close(): void } } }
      assistant.runtime.close()
    } finally {
      vi.restoreAllMocks()
      uninstall()
      await gateway.close()
    }
    expect(printed).toEqual([[['user', 'assistant']]])
    expect(serverCode?.code).toContain("// [ 'user', 'assistant' ]")
    expect(gateway.calls.map((call) => call.modelId)).toEqual(['openai/gpt-5.6-terra'])
  })
})
