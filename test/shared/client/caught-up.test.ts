import { describe, expect, it } from 'vitest'
import { inputs } from '../../../shared/ai.ts'
import { createAgentClient } from '../../../shared/client/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import { servedAgent, tracked, until } from '../../support/served-agent.ts'

describe('caught up', () => {
  it("is true once the stream delivered everything the log held when it connected (the server's head marker)", async () => {
    const served = await servedAgent([text('An answer in several chunks', { chunks: 5 })])
    await served.agent
      .session('s')
      .append(...inputs.message({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }))
    await served.agent.runtime.idle()
    const head = await served.agent.runtime.log.session('s').head()
    expect(head).toBeGreaterThan(5)

    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s')
    const seen: { caughtUp: boolean; index: number }[] = []
    const unsubscribe = session.subscribe(() => {
      const snapshot = session.getSnapshot()
      seen.push({ caughtUp: snapshot.caughtUp, index: snapshot.confirmed.index })
    })
    await until(() => session.getSnapshot().caughtUp)
    unsubscribe()
    // Never caught up before the head, always once there.
    expect(seen.filter((s) => s.caughtUp).every((s) => s.index >= head)).toBe(true)
    expect(seen.some((s) => !s.caughtUp)).toBe(true)
    expect(session.getSnapshot().confirmed.index).toBe(head)
  })
})
