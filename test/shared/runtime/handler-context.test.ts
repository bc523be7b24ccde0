import { describe, expect, it } from 'vitest'
import { type HandlerContext, handlerContext } from '../../../shared/runtime/handler-context.ts'
import { runWithHandlerContext } from '../../../shared/runtime/handler-context-storage.ts'

const context = (agentName = 'support-agent'): HandlerContext => ({
  event: {
    id: 'e1',
    type: 'ai.tool.called',
    payload: {},
    sessionId: 's',
    life: '',
    index: 3,
    timestamp: 0,
  },
  attempt: 1,
  signal: new AbortController().signal,
  agentName,
  idempotencyKey: 'id-key',
  step: async (_name, fn) => fn(),
  session: {
    id: 's',
    append: async () => [],
    state: async () => ({ state: {}, index: 0 }),
    schedule: async () => {},
  } as HandlerContext['session'],
})

describe('handlerContext()', () => {
  it('throws outside a handler, naming where it works', () => {
    expect(() => handlerContext()).toThrow(/only inside an A2 tool execution/)
  })

  it('returns the running context anywhere below the handler, across awaits', async () => {
    const ctx = context()
    const helper = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1))
      return handlerContext()
    }
    const seen = await runWithHandlerContext(ctx, helper)
    expect(seen).toBe(ctx)
    expect(() => handlerContext()).toThrow()
  })

  it('keeps concurrent handlers apart', async () => {
    const [a, b] = [context('a'), context('b')]
    const read = async () => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5))
      return handlerContext().agentName
    }
    const names = await Promise.all([
      runWithHandlerContext(a, read),
      runWithHandlerContext(b, read),
    ])
    expect(names).toEqual(['a', 'b'])
  })

  it("refuses a contract that is not the executing agent's", () => {
    runWithHandlerContext(context('support-desk'), () => {
      expect(handlerContext({ name: 'support-desk' }).agentName).toBe('support-desk')
      expect(() => handlerContext({ name: 'billing' })).toThrow(/agent "support-desk"/)
    })
  })
})
