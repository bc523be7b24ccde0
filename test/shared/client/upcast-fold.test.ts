import { describe, expect, it } from 'vitest'
import { createAgentClient } from '../../../shared/client/index.ts'
import { deskRelease1, deskRelease2 } from '../../support/desk-releases.ts'
import { servedAgent, tracked, until } from '../../support/served-agent.ts'

// The server still runs the first release's contract; the browser already has the second.
const released = deskRelease1
const next = deskRelease2

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
