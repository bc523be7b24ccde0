import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agentContract, versionedEvent } from '../../../shared/ai.ts'
import { createAgentClient } from '../../../shared/client/index.ts'
import { servedAgent, tracked, until } from '../../support/served-agent.ts'

// The server still runs the first release's contract; the browser already has the second.
const released = agentContract({
  name: 'desk',
  events: { 'plan.changed': z.object({ plan: z.enum(['free', 'pro']) }) },
})
const next = agentContract({
  name: 'desk',
  events: {
    'plan.changed': versionedEvent({
      version: 2,
      schema: z.object({ plan: z.enum(['free', 'pro']), seats: z.number() }),
      upcast: { 1: (v1: { plan: 'free' | 'pro' }) => ({ ...v1, seats: 1 }) },
    }),
  },
  reducer: {
    name: 'desk.v2',
    initialState: { seats: 0 },
    fold: (state, event) =>
      event.type === 'plan.changed' ? { seats: state.seats + event.payload.seats } : state,
  },
})

describe('the browser folds upcast events', () => {
  it("folds a server's version-1 events by its own contract's version 2", async () => {
    const served = await servedAgent([], { contract: released } as never)
    await served.agent.session('s1').append({ type: 'plan.changed', payload: { plan: 'pro' } })
    await served.agent.session('s1').append({ type: 'plan.changed', payload: { plan: 'free' } })

    const client = tracked(createAgentClient({ api: served.api, contract: next }))
    const session = client.session('s1')
    session.subscribe(() => {})
    const snapshot = await until(() => {
      const current = session.getSnapshot()
      return current.confirmed.index === 2 && current
    })
    expect(snapshot.state.seats).toBe(2)
  })
})
