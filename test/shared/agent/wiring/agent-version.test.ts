import { readFileSync } from 'node:fs'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import { agentContract, versionedEvent } from '../../../../shared/ai.ts'
import type { EventDefinition } from '../../../../shared/index.ts'
import { A2_PACKAGE_VERSION } from '../../../../shared/log/package-version.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { repoRoot } from '../../../support/repo-root.ts'

const model = scriptedModel([text('ok')]).model
const ticketTool = (ticketId: z.ZodType = z.string()) =>
  tool({ inputSchema: z.object({ ticketId }), execute: async () => ({ closed: true }) })
const versionOf = (options: Partial<Parameters<typeof agent>[0]> = {}): string =>
  agent({ name: 'versions', model, tools: { closeTicket: ticketTool() }, ...options }).version

const withContract = (plan: EventDefinition): string =>
  agent({
    name: 'versions',
    model,
    tools: { closeTicket: ticketTool() },
    contract: agentContract({ name: 'versions', events: { 'plan.changed': plan } }),
  }).version

describe("an agent's version", () => {
  it('is the same for the same code in two processes, and 12 hex digits', () => {
    expect(versionOf()).toBe(versionOf())
    expect(versionOf()).toMatch(/^[0-9a-f]{12}$/)
  })

  it('changes with what decides how stored sessions run: tools, schemas, approval, recovery, handlers, the contract', () => {
    const base = versionOf()
    const changed = [
      versionOf({ tools: {} }),
      versionOf({ tools: { closeTicket: ticketTool(z.number()) } }),
      versionOf({ tools: { closeTicket: ticketTool(), lookup: ticketTool() } }),
      versionOf({
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      }),
      versionOf({ toolRecovery: { closeTicket: 'report' } }),
      versionOf({ toolLane: 'tools' }),
      versionOf({ handlers: { 'ticket.closed': () => {} } }),
      withContract(z.object({ plan: z.string() })),
      withContract(z.object({ plan: z.enum(['a']) })),
      // A versioned event counts by its version and its current schema.
      withContract(
        versionedEvent({ version: 2, schema: z.object({ plan: z.enum(['a']) }), upcast: {} }),
      ),
      withContract(
        versionedEvent({ version: 2, schema: z.object({ plan: z.enum(['b']) }), upcast: {} }),
      ),
    ]
    for (const version of changed) expect(version).not.toBe(base)
    expect(new Set(changed).size).toBe(changed.length)
  })

  it('does not change with the model or the instructions: a new prompt changes answers, not what a stored session means', () => {
    expect(
      versionOf({ model: scriptedModel([text('other')]).model, instructions: 'Be brief.' }),
    ).toBe(versionOf())
  })

  it('is the given one when given, and a clear TypeError when it cannot be recorded', () => {
    expect(versionOf({ version: 'release-2026.12.06' })).toBe('release-2026.12.06')
    expect(() => versionOf({ version: 'has space' })).toThrow(
      /a version is 1 to 64 printable ASCII characters/,
    )
    expect(() => versionOf({ version: '' })).toThrow(TypeError)
    expect(() => versionOf({ version: 'x'.repeat(65) })).toThrow(TypeError)
  })

  it("counts this package's version, which is package.json's", () => {
    const pkg = JSON.parse(readFileSync(`${repoRoot}/package.json`, 'utf8')) as { version: string }
    expect(A2_PACKAGE_VERSION).toBe(pkg.version)
  })
})
