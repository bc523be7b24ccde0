import { Type } from '@mariozechner/pi-ai'
import type { UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { agentContract, inputs } from '../../../../shared/ai.ts'
import { type PiTool, piHarness } from '../../../../shared/harness/pi/index.ts'
import {
  describeHarnessConformance,
  gatewayDouble,
  gatewaySubject,
  lastUserText,
  reasoning,
  scriptedModel,
  scriptedSubject,
  text,
  toolCalls,
} from '../../../../shared/testing/index.ts'
import { textOf, track, until, userMessage } from '../../../support/agent-log.ts'

describeHarnessConformance('pi', scriptedSubject(piHarness()), { describe, it, expect })
describeHarnessConformance('pi through the Gateway double', gatewaySubject(piHarness()), {
  describe,
  it,
  expect,
})

/** A Pi `AgentTool` (TypeBox parameters, Pi's execute), recording what it did. */
function closeTicketTool(done: string[]): PiTool {
  return {
    name: 'closeTicket',
    label: 'Close ticket',
    description: 'Close a resolved support ticket',
    parameters: Type.Object({ ticketId: Type.String() }),
    async execute(toolCallId: string, params: { ticketId: string }) {
      done.push(`${params.ticketId}:${toolCallId}`)
      return {
        content: [{ type: 'text', text: `Closed ${params.ticketId}` }],
        details: { closed: true },
      }
    },
  } as PiTool
}

describe('the Pi harness', () => {
  it('runs a real pi-agent-core loop through the Gateway double: two sessions, a Pi tool with approval, Steer and Stop', async () => {
    const done: string[] = []
    const gateway = await gatewayDouble({
      script: (call) => {
        const last = call.messages.at(-1)
        const user = lastUserText(call)
        if (last?.role === 'tool')
          return text(`Done: ${last.text.includes('Closed T-') ? 'closed' : last.text}.`)
        if (user.startsWith('Close ')) {
          return toolCalls({
            toolCallId: `call-${user.slice(6)}`,
            toolName: 'closeTicket',
            input: { ticketId: user.slice(6) },
          })
        }
        if (user === 'Write a long answer')
          return { hang: true, parts: text('A long answer, cut').slice(0, -2) }
        return text(`You said: ${user}`)
      },
    })
    const undo = gateway.install()
    try {
      const a = track(
        agent({
          name: 'pi-support',
          model: 'openai/gpt-5.6-terra',
          instructions: 'Be concise.',
          harness: piHarness({
            tools: [closeTicketTool(done)],
            compaction: false,
            generation: { toolApproval: { closeTicket: 'user-approval' } },
          }),
        }),
      )
      await Promise.all([
        a.session('one').append(...inputs.message(userMessage('one-1', 'Close T-1'))),
        a.session('two').append(...inputs.message(userMessage('two-1', 'Close T-2'))),
      ])
      const pending = await until(async () => {
        const [one, two] = await Promise.all([a.session('one').state(), a.session('two').state()])
        const first = one.state.pendingApprovals[0]
        const second = two.state.pendingApprovals[0]
        return first && second ? { first, second } : undefined
      })
      expect(done).toEqual([])
      await a.session('one').append(...inputs.approval(pending.first, { approved: true }))
      await a
        .session('two')
        .append(...inputs.approval(pending.second, { approved: false, reason: 'Not yet' }))
      await a.runtime.idle()
      const one = (await a.session('one').state()).state
      const two = (await a.session('two').state()).state
      expect(done).toEqual(['T-1:call-T-1'])
      expect(textOf(one.messages.at(-1) as never)).toBe('Done: closed.')
      expect(two.messages.at(-1)?.parts).toContainEqual(
        expect.objectContaining({ type: 'tool-closeTicket', state: 'output-denied' }),
      )
      expect(gateway.calls.every((call) => call.system === 'Be concise.')).toBe(true)
      expect(gateway.calls[0]?.tools).toEqual(['closeTicket'])

      // Steer a running turn of session one; Stop session two's.
      await a.session('one').append(...inputs.message(userMessage('one-2', 'Write a long answer')))
      await a.session('two').append(...inputs.message(userMessage('two-2', 'Write a long answer')))
      const running = await until(async () => {
        const [s1, s2] = await Promise.all([a.session('one').state(), a.session('two').state()])
        const shown = (snapshot: typeof s1) =>
          textOf(snapshot.state.messages.at(-1) as never) === 'A long answer, cut'
        return s1.state.activeGeneration?.status === 'running' && shown(s1) && shown(s2)
          ? { s1, s2 }
          : undefined
      })
      await a.session('one').append(
        ...inputs.steer(userMessage('one-3', 'Stop writing, just say hi'), {
          afterStepOf: running.s1.state.active?.turnId ?? null,
        }),
      )
      await a.session('two').append(
        ...inputs.stop({
          turnId: running.s2.state.active?.turnId as string,
          frontier: running.s2.index,
        }),
      )
      gateway.release()
      await a.runtime.idle()
      const steered = (await a.session('one').state()).state
      const stopped = (await a.session('two').state()).state
      expect(steered.messages.slice(-3).map((message) => textOf(message as never))).toEqual([
        'A long answer, cut',
        'Stop writing, just say hi',
        'You said: Stop writing, just say hi',
      ])
      expect(stopped.active).toBeNull()
      expect(textOf(stopped.messages.at(-1) as never)).toBe('A long answer, cut')
      expect(stopped.stoppedResponseIds).toHaveLength(1)
    } finally {
      undo()
      await gateway.close()
    }
  })

  it("gives Pi's transformContext Pi's messages before each model call, and what it returns is what the model sees", async () => {
    const seen: string[][] = []
    const model = scriptedModel([text('First.'), text('Second.')])
    const a = track(
      agent({
        name: 'pi-context',
        model: model.model,
        harness: piHarness({
          async transformContext(messages) {
            seen.push(messages.map((message) => message.role))
            // Keep only the latest user message: Pi's own way to manage context.
            return messages.slice(-1)
          },
        }),
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await a.runtime.idle()
    await a.session('s').append(...inputs.message(userMessage('m2', 'two')))
    await a.runtime.idle()
    expect(seen).toEqual([['user'], ['user', 'assistant', 'user']])
    expect(model.calls[1]?.prompt.map((message) => message.role)).toEqual(['user'])
    const { state } = await a.session('s').state()
    expect(state.messages.map((message) => textOf(message as never))).toEqual([
      'one',
      'First.',
      'two',
      'Second.',
    ])
  })

  it("streams the model's reasoning and text through Pi's thinking and text events into the response", async () => {
    const model = scriptedModel([reasoning('Check the order first.', 'It shipped.')])
    const a = track(agent({ name: 'pi-reasoning', model: model.model, harness: piHarness() }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Where is it?')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.messages.at(-1)?.parts).toMatchObject([
      { type: 'step-start' },
      { type: 'reasoning', text: 'Check the order first.' },
      { type: 'text', text: 'It shipped.' },
    ])
  })

  it("takes the agent's contract: a compaction resolver typed with the contract's state and messages gets them per step", async () => {
    type Message = UIMessage<{ status: 'writing' }>
    const contract = agentContract<Message, Record<never, never>, { plan: string }>({
      name: 'pi-contract',
      reducer: { name: 'plan', initialState: { plan: 'free' }, fold: (state) => state },
    })
    const seen: string[] = []
    const model = scriptedModel([text('Hello.')])
    const a = track(
      agent({
        contract,
        model: model.model,
        // The adapter's state and messages are the contract's only when given.
        harness: piHarness<{ plan: string }, Message>({
          compaction: ({ state, messages }) => {
            seen.push(`${state.plan}:${messages.length}`)
            return false
          },
        }),
      }),
    )
    // Without type arguments it fits any contract, one without state too.
    track(agent({ contract, model: model.model, harness: piHarness() }))
    const stateless = agentContract<Message>({ name: 'pi-stateless' })
    track(agent({ contract: stateless, model: model.model, harness: piHarness() }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
    await a.runtime.idle()
    expect(seen).toEqual(['free:1'])
  })

  it('refuses a Pi tool whose name another tool has', () => {
    expect(() =>
      agent({
        name: 'pi-clash',
        model: 'openai/gpt-5.6-terra',
        tools: {
          closeTicket: {
            inputSchema: Type.Object({}) as never,
            execute: async () => ({}),
          } as never,
        },
        harness: piHarness({ tools: [closeTicketTool([])] }),
      }),
    ).toThrow('Two tools are named "closeTicket"')
  })
})
