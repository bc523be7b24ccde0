import { describe, expect, it } from 'vitest'
import { agent, HarnessNotImportedError } from '../../../../shared/agent/index.ts'
import { hasA2Code } from '../../../../shared/index.ts'
import { describeHarnessConformance, scriptedSubject } from '../../../../shared/testing/index.ts'

describeHarnessConformance('ai-sdk', scriptedSubject({ type: 'ai-sdk' }), { describe, it, expect })

describe('harness.type', () => {
  it.each([[{ type: 'pie' }], [{ type: 'AI-SDK' }], [{}], ['pi']])(
    'Given harness %j from JavaScript, Then agent() refuses it with UNKNOWN_HARNESS instead of running the AI SDK loop',
    (harness) => {
      let caught: unknown
      try {
        agent({ name: 'a', model: 'openai/gpt-5.6-terra', harness: harness as never })
      } catch (error) {
        caught = error
      }
      expect(hasA2Code(caught, 'UNKNOWN_HARNESS')).toBe(true)
      expect(caught).toMatchObject({
        name: 'UnknownHarnessError',
        supported: ['ai-sdk', 'pi', 'fx'],
      })
      expect((caught as Error).message).toMatch(
        /agent\(\) has no harness of type .*: use \{ type: 'ai-sdk' \}/,
      )
    },
  )

  it.each([
    ['pi', 'piHarness', 'a2-aws/harness/pi'],
    ['fx', 'fxHarness', 'a2-aws/harness/fx'],
  ])(
    "Given { type: '%s' } without its adapter, Then agent() refuses it with HARNESS_NOT_IMPORTED naming the import that brings it",
    (type, adapter, entryPoint) => {
      let caught: unknown
      try {
        agent({ name: 'a', model: 'openai/gpt-5.6-terra', harness: { type } as never })
      } catch (error) {
        caught = error
      }
      expect(hasA2Code(caught, 'HARNESS_NOT_IMPORTED')).toBe(true)
      expect(caught).toBeInstanceOf(HarnessNotImportedError)
      expect(caught).toMatchObject({
        name: 'HarnessNotImportedError',
        harnessType: type,
        adapter,
        entryPoint,
      })
      expect((caught as Error).message).toContain(
        `import { ${adapter} } from '${entryPoint}' and pass harness: ${adapter}({ ... })`,
      )
    },
  )

  it("Given no harness, Then the agent runs the AI SDK's loop (`{ type: 'ai-sdk' }`)", () => {
    expect(agent({ name: 'a', model: 'openai/gpt-5.6-terra' }).runtime).toBeDefined()
  })
})
