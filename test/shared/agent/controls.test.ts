import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { eventsOf, textOf, track, typesOf, until, userMessage } from '../../support/agent-log.ts'

describe('turn controls (embedded)', () => {
  it('Stop mid-stream aborts the model, keeps the partial text the client saw, and admits the next input', async () => {
    const script = scriptedModel([
      { hang: true, parts: text('The first half of an answer', { chunks: 6 }).slice(0, 6) },
      text('Second answer.'),
    ])
    const a = track(agent({ name: 'stopper', model: script.model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Tell me a story')))
    const seen = await until(async () => {
      const snapshot = await a.session('s').state()
      return textOf(snapshot.state.messages[1]).length > 0 && snapshot
    })
    await a.session('s').append(...inputs.message(userMessage('m2', 'Next question')))
    const turnId = seen.state.active?.turnId
    if (!turnId) throw new Error('no active turn')
    await a.session('s').append(...inputs.stop({ turnId, frontier: seen.index }))
    await a.runtime.idle()

    const { state } = await a.session('s').state()
    expect(textOf(state.messages[1])).toBe(textOf(seen.state.messages[1]))
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(textOf(state.messages[3])).toBe('Second answer.')
    expect(state.receipt?.outcome).toBe('applied')
    // The stopped model call saw its abort signal.
    expect(script.calls[0]?.abortSignal?.aborted).toBe(true)
  })

  it('a provider error fails the turn with its message; retry() reruns it', async () => {
    const script = scriptedModel([{ error: 'provider overloaded' }, text('Recovered answer.')])
    const a = track(agent({ name: 'retry', model: script.model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
    await a.session('s').append(...inputs.message(userMessage('m2', 'Queued meanwhile')))
    await a.runtime.idle()
    let { state } = await a.session('s').state()
    expect(state.active?.phase).toBe('failed')
    expect(state.active?.error).toContain('provider overloaded')
    expect(state.inbox.items.map((item) => item.id)).toEqual(['m2'])

    const turnId = state.active?.turnId as string
    await a.session('s').append(...inputs.retry({ turnId, retryId: 'retry-1' }))
    await a.session('s').append(...inputs.retry({ turnId, retryId: 'retry-1' })) // resent: replays
    await a.runtime.idle()
    ;({ state } = await a.session('s').state())
    expect(textOf(state.messages[1])).toBe('Recovered answer.')
    const completions = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.generation.completed',
    )
    expect(
      completions.map((event) => (event.payload as { outcome: string }).outcome).slice(0, 2),
    ).toEqual(['failed', 'success'])
  }, 15_000)

  it("a failed model call is logged with its session and the provider's error, not only written to the log", async () => {
    const script = scriptedModel([{ error: 'connect ECONNREFUSED 127.0.0.1:443' }])
    const errors: string[] = []
    const logger = { info() {}, warn() {}, error: (line: string) => errors.push(line) }
    const a = track(agent({ name: 'unreachable', model: script.model, logger }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active?.phase).toBe('failed')
    expect(errors).toEqual([
      expect.stringMatching(/^a2: generation \S+ of session s failed: .*ECONNREFUSED/),
    ])
  })

  it('steering hands off after the current step: the turn ends and the steering enters as the next turn', async () => {
    const script = scriptedModel([
      { hang: true, parts: text('Looking into the first thing', { chunks: 3 }).slice(0, 4) },
      text('Checked the billing service.'),
    ])
    const a = track(agent({ name: 'steer', model: script.model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Investigate')))
    const snapshot = await until(async () => {
      const current = await a.session('s').state()
      return current.state.activeGeneration?.status === 'running' && current
    })
    await a.session('s').append(
      ...inputs.steer(userMessage('m2', 'Check the billing service first.'), {
        afterStepOf: snapshot.state.active?.turnId ?? null,
      }),
    )
    script.release()
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.messages.map((m) => m.id)).toEqual([
      'm1',
      expect.any(String),
      'm2',
      expect.any(String),
    ])
    expect(textOf(state.messages[3])).toBe('Checked the billing service.')
    const completed = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.message.completed',
    )
    expect(completed.map((event) => (event.payload as { reason: string }).reason)).toEqual([
      'handoff',
      'finished',
    ])
  })

  it('steering removed from the queue: "removing the item cancels it", so the model answers the tool result', async () => {
    let finishTool: () => void = () => {}
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'slow', input: {} }),
      text('The slow thing is done.'),
    ])
    const a = track(
      agent({
        name: 'steer-removed',
        model: script.model,
        tools: {
          slow: tool({
            inputSchema: z.object({}),
            execute: () => new Promise((resolve) => (finishTool = () => resolve({ done: true }))),
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Do the slow thing')))
    const running = await until(async () => {
      const current = await a.session('s').state()
      return current.state.tools.some((t) => t.status === 'running') && current
    })
    const turnId = running.state.active?.turnId ?? null
    await a
      .session('s')
      .append(...inputs.steer(userMessage('s1', 'Actually, wait'), { afterStepOf: turnId }))
    await a.session('s').append(...inputs.queue.remove('s1'))
    await until(async () => (await a.session('s').state()).state.inbox.items.length === 0)
    finishTool()
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active).toBeNull()
    expect(state.messages.map((m) => m.id)).toEqual(['m1', expect.any(String)])
    expect(textOf(state.messages[1])).toBe('The slow thing is done.')
    const completed = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.message.completed',
    )
    expect(completed.map((event) => (event.payload as { reason: string }).reason)).toEqual([
      'finished',
    ])
  })

  it('Send now promotes a queued message through the same hand-off', async () => {
    const script = scriptedModel([
      { hang: true, parts: text('Working', { chunks: 1 }).slice(0, 3) },
      text('Now on it.'),
      text('And the second.'),
    ])
    const a = track(agent({ name: 'send-now', model: script.model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'First')))
    await a.session('s').append(...inputs.message(userMessage('m2', 'Second')))
    await a.session('s').append(...inputs.message(userMessage('m3', 'Third')))
    const snapshot = await until(async () => {
      const current = await a.session('s').state()
      return current.state.activeGeneration?.status === 'running' && current
    })
    await a
      .session('s')
      .append(...inputs.queue.sendNow('m3', { afterStepOf: snapshot.state.active?.turnId ?? null }))
    script.release()
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    // m3 jumped the queue; m2 keeps its place after it.
    expect(state.messages.map((m) => m.id).filter((id) => id.startsWith('m'))).toEqual([
      'm1',
      'm3',
      'm2',
    ])
    expect(textOf(state.messages[3])).toBe('Now on it.')
  })

  it('Pause now cancels model and tool work (pausing, then paused); resume starts a fresh request', async () => {
    let toolAborted = false
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'slow', input: {} }),
      text('Finished after resume.'),
    ])
    let runs = 0
    const a = track(
      agent({
        name: 'pauser',
        model: script.model,
        tools: {
          slow: tool({
            inputSchema: z.object({}),
            execute: async (_input, { abortSignal }) => {
              runs++
              if (runs > 1) return { done: true }
              await new Promise((resolve) => {
                abortSignal?.addEventListener('abort', () => {
                  toolAborted = true
                  resolve(undefined)
                })
              })
              throw new Error('aborted')
            },
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Do the slow thing')))
    await until(
      async () =>
        (await a.session('s').state()).state.tools.some((t) => t.status === 'running') &&
        runs === 1,
    )
    await a.session('s').append(...inputs.pause({ when: 'now' }))
    await a.runtime.idle()
    let { state } = await a.session('s').state()
    expect(toolAborted).toBe(true)
    expect(state.active?.phase).toBe('paused')
    expect(state.inbox.paused).toBe(true)
    await a.session('s').append(...inputs.resume())
    await a.runtime.idle()
    ;({ state } = await a.session('s').state())
    expect(runs).toBe(2)
    expect(state.active).toBeNull()
    expect(textOf(state.messages[1])).toBe('Finished after resume.')
  })

  it('Given a tool that takes a while to stop, When Pause now is sent, Then "state.active.phase is pausing while old work settles, then paused"', async () => {
    let runs = 0
    let stopped = false
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'slow', input: {} }),
      text('Finished after resume.'),
    ])
    const a = track(
      agent({
        name: 'pausing',
        model: script.model,
        tools: {
          slow: tool({
            inputSchema: z.object({}),
            execute: async (_input, { abortSignal }) => {
              runs++
              if (runs > 1) return { done: true }
              await new Promise((resolve) => abortSignal?.addEventListener('abort', resolve))
              // Cleaning up after the abort takes a while.
              await new Promise((resolve) => setTimeout(resolve, 300))
              stopped = true
              throw new Error('aborted')
            },
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Do the slow thing')))
    await until(() => runs === 1)
    await a.session('s').append(...inputs.pause({ when: 'now' }))
    await until(async () => (await a.session('s').state()).state.receipt?.action === 'pause')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(stopped).toBe(false)
    expect((await a.session('s').state()).state.active?.phase).toBe('pausing')
    await until(async () => (await a.session('s').state()).state.active?.phase === 'paused')
    expect(stopped).toBe(true)
    const types = await typesOf(a, 's')
    expect(types.filter((type) => type === 'ai.tool.interrupted')).toHaveLength(1)

    await a.session('s').append(...inputs.resume())
    await until(async () => (await a.session('s').state()).state.active === null)
    expect(runs).toBe(2)
    expect(textOf((await a.session('s').state()).state.messages[1])).toBe('Finished after resume.')
  })

  it("Given a tool that never stops, When Pause now is sent, Then the turn is paused once its worker's claim would have run out", async () => {
    let runs = 0
    const script = scriptedModel([toolCalls({ toolCallId: 'c1', toolName: 'stuck', input: {} })])
    const a = track(
      agent({
        name: 'pausing-stuck',
        model: script.model,
        claimTtlMs: 300,
        tools: {
          stuck: tool({
            inputSchema: z.object({}),
            execute: async () => {
              runs++
              await new Promise(() => {}) // ignores its abort signal
            },
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Do the stuck thing')))
    await until(() => runs === 1)
    const pausedAt = Date.now()
    await a.session('s').append(...inputs.pause({ when: 'now' }))
    await until(async () => (await a.session('s').state()).state.receipt?.action === 'pause')
    expect((await a.session('s').state()).state.active?.phase).toBe('pausing')
    await until(async () => (await a.session('s').state()).state.active?.phase === 'paused')
    expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(250)
    expect((await a.session('s').state()).state.tools).toEqual([
      expect.objectContaining({ toolCallId: 'c1', status: 'interrupted' }),
    ])
  })

  it('a stale approval from an earlier model step cannot authorize a later one', async () => {
    const effects: string[] = []
    const closeTicket = tool({
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }) => {
        effects.push(ticketId)
        return { closed: true }
      },
    })
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'A' } }),
      toolCalls({ toolCallId: 'c2', toolName: 'closeTicket', input: { ticketId: 'B' } }),
      text('done'),
    ])
    const a = track(
      agent({
        name: 'stale',
        model: script.model,
        tools: { closeTicket },
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'close A then B')))
    await a.runtime.idle()
    const first = (await a.session('s').state()).state.pendingApprovals[0]
    if (!first) throw new Error('no approval')
    await a.session('s').append(...inputs.approval(first, { approved: true }))
    await a.runtime.idle()
    const second = (await a.session('s').state()).state.pendingApprovals[0]
    if (!second) throw new Error('no second approval')
    expect(second.toolCallId).toBe('c2')
    // Replaying the first decision, with its old IDs, against the second request:
    await a
      .session('s')
      .append(
        ...inputs.approval(
          { ...second, approvalId: first.approvalId, generationId: first.generationId },
          { approved: true },
        ),
      )
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(effects).toEqual(['A'])
    expect(state.pendingApprovals.map((approval) => approval.toolCallId)).toEqual(['c2'])
    expect(state.receipt).toMatchObject({ outcome: 'rejected' })
    expect(await typesOf(a, 's')).toContain('ai.approval.requested')
  })
})
