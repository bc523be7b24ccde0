import { describe, expect, it } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import type { StoredEvent } from '../../../shared/index.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import { supportDesk } from '../../seeds/support-desk.ts'
import { track, userMessage } from '../../support/agent-log.ts'
import { readSse, type SseRead } from '../../support/sse.ts'

// The GET stream ends soon after the turn it served is over (issue 34): on
// Lambda an invocation runs until its stream ends, whether the tab stays or
// left unseen, so a stream that waited out its full quiet after every
// answer cost a turn 10 s of the stream function.

const url = 'http://a2.test/api/agent?sessionId=s1'
const post = (body: unknown) =>
  new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
const typesOf = (read: SseRead) =>
  read.messages.map((message) => (JSON.parse(message.data) as StoredEvent).type)
const QUIET_MS = 4_000

describe("an agent's GET stream once its turn is over", () => {
  it('ends for quiet within stream.settledQuietMs of the answer, not after the full quietMs', async () => {
    const a = track(
      agent({
        name: 'settled',
        model: scriptedModel([text('All done here', { chunks: 3 })]).model,
        stream: { quietMs: QUIET_MS, settledQuietMs: 100 },
      }),
    )
    const watching = a.fetch(new Request(url)).then(async (response) => {
      let answeredAt: number | undefined
      const read = await readSse(response, {
        until: (r) => {
          if (answeredAt === undefined && typesOf(r).includes('ai.message.completed'))
            answeredAt = Date.now()
          return false
        },
        timeoutMs: 3 * QUIET_MS,
      })
      return { read, answeredAt, endedAt: Date.now() }
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await a.fetch(post({ events: inputs.message(userMessage('m1', 'Hi')) }))).status).toBe(
      200,
    )
    const { read, answeredAt, endedAt } = await watching
    expect(read.ended).toBe(true)
    expect(read.comments.at(-1)?.trim()).toBe('quiet')
    expect(answeredAt).toBeDefined()
    // Without the settled end it would run on for QUIET_MS.
    expect(endedAt - (answeredAt as number)).toBeLessThan(QUIET_MS / 2)
  })

  it('keeps the full quietMs for a stream that resumes at a settled head (a send may be on its way), and with settledQuietMs false', async () => {
    const settledEnd = async (settledQuietMs: number | false, resume: boolean) => {
      const a = track(
        agent({
          name: 'settled',
          model: scriptedModel([text('Done', { chunks: 2 })]).model,
          stream: { quietMs: 600, settledQuietMs },
        }),
      )
      await a.fetch(post({ events: inputs.message(userMessage('m1', 'Hi')) }))
      await a.runtime.idle()
      const { index } = await a.session('s1').state()
      const started = Date.now()
      const read = await readSse(
        await a.fetch(
          new Request(url, { headers: resume ? { 'last-event-id': String(index) } : {} }),
        ),
        { timeoutMs: 5_000 },
      )
      expect(read.comments.at(-1)?.trim()).toBe('quiet')
      return Date.now() - started
    }
    // Resumed at the head: it sends nothing, so nothing settles it.
    expect(await settledEnd(50, true)).toBeGreaterThanOrEqual(550)
    // From the start: it sends the whole turn, settled at its end.
    expect(await settledEnd(50, false)).toBeLessThan(400)
    expect(await settledEnd(false, false)).toBeGreaterThanOrEqual(550)
  })

  it("keeps the full quietMs after an app event (a session your services write stays live), even once the turn's over", async () => {
    const a = track(
      agent({
        name: 'settled',
        contract: supportDesk,
        model: scriptedModel([text('Done', { chunks: 2 })]).model,
        stream: { quietMs: 600, settledQuietMs: 50 },
      }),
    )
    await a.fetch(post({ events: inputs.message(userMessage('m1', 'Hi')) }))
    await a.runtime.idle()
    await a.session('s1').append({ type: 'plan.changed', payload: { plan: 'pro' } })
    const started = Date.now()
    const read = await readSse(await a.fetch(new Request(url)), { timeoutMs: 5_000 })
    expect(typesOf(read).at(-1)).toBe('plan.changed')
    expect(read.comments.at(-1)?.trim()).toBe('quiet')
    expect(Date.now() - started).toBeGreaterThanOrEqual(550)
  })
})
