// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { tool } from 'ai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { inputs } from '../../../shared/ai.ts'
import { useAgent } from '../../../shared/react/index.ts'
import { text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { ApprovalControls } from '../../seeds/approval-controls.tsx'
import { Chat } from '../../seeds/chat.tsx'
import { Desk } from '../../seeds/desk.tsx'
import { Queue } from '../../seeds/queue.tsx'
import { supportDesk } from '../../seeds/support-desk.ts'
import { TurnControls } from '../../seeds/turn-controls.tsx'
import { onCleanup, servedAgent, textOf } from '../../support/served-agent.ts'

// The seeds use relative routes; send each to its served agent.
const routes = new Map<string, string>()
const realFetch = globalThis.fetch
beforeEach(() => {
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input)
    const route = [...routes.keys()].find((path) => url.startsWith(`${path}?`))
    return realFetch(route ? `${routes.get(route)}${url.slice(route.length)}` : input, init)
  })
})
afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  routes.clear()
})

let sessions = 0
const freshId = () => `react-${Date.now()}-${sessions++}`
const message = (id: string, words: string) => ({
  id,
  role: 'user' as const,
  parts: [{ type: 'text' as const, text: words }],
})

/** Shows what a component rendered, so a test can compare with what an action sent. */
function Frontier({ id }: { id: string }) {
  const { confirmed, status } = useAgent({ api: '/api/agent', id })
  return <output data-status={status}>{confirmed.index}</output>
}

describe('useAgent', () => {
  it('renders the server snapshot at once, then streams a sent message (the Chat sample)', async () => {
    const served = await servedAgent(
      [text('Earlier answer.'), text('Hello from the agent', { chunks: 4 })],
      {
        chunkDelayMs: 20,
      },
    )
    routes.set('/api/agent', served.api)
    const id = freshId()
    await served.agent.session(id).append(...inputs.message(message('m0', 'Earlier question')))
    await served.agent.runtime.idle()
    const initial = await served.agent.session(id).state()

    render(<Chat sessionId={id} initial={initial} />)
    expect(screen.getByText('Earlier answer.')).toBeTruthy()

    fireEvent.change(screen.getByLabelText('Message'), { target: { value: 'Hi there' } })
    fireEvent.submit(screen.getByLabelText('Message').closest('form') as HTMLFormElement)
    // Optimistic: the message and the indicator show before the server answers.
    expect(screen.getByText('Hi there')).toBeTruthy()
    expect(screen.getByRole('status').textContent).toBe('Starting…')
    expect(await screen.findByText('Hello from the agent', {}, { timeout: 5_000 })).toBeTruthy()
    await waitFor(() => expect(screen.queryByRole('status')).toBeNull())
    expect(served.resumes).toEqual([initial.index])
  })

  it('shows a refused send as an alert and keeps the draft', async () => {
    const served = await servedAgent([text('unused')])
    const { serveFetch } = await import('../../../shared/node/serve.ts')
    const server = await serveFetch((request) =>
      served.agent.fetch(request, { authorize: (operation) => operation.type !== 'push' }),
    )
    onCleanup(() => server.close())
    routes.set('/api/agent', `${server.url}/api/agent`)
    const id = freshId()
    render(
      <Chat
        sessionId={id}
        initial={{ state: (await served.agent.session(id).state()).state, index: 0 }}
      />,
    )
    fireEvent.change(screen.getByLabelText('Message'), { target: { value: 'Let me in' } })
    fireEvent.submit(screen.getByLabelText('Message').closest('form') as HTMLFormElement)
    expect((await screen.findByRole('alert')).textContent).toContain('Not allowed to push')
    expect((screen.getByLabelText('Message') as HTMLInputElement).value).toBe('Let me in')
    expect(screen.queryByText('Let me in', { selector: 'p' })).toBeNull()
  })

  it('Stop sends the frontier the component rendered; components on one session share one stream', async () => {
    const served = await servedAgent([
      { hang: true, parts: text('A long story begins', { chunks: 4 }).slice(0, 5) },
    ])
    routes.set('/api/agent', served.api)
    const id = freshId()
    await served.agent.session(id).append(...inputs.message(message('m1', 'Tell me a story')))
    render(
      <>
        <TurnControls sessionId={id} />
        <Frontier id={id} />
      </>,
    )
    const stop = await screen.findByRole('button', { name: 'Stop' }, { timeout: 5_000 })
    await waitFor(() => expect(document.querySelector('output')?.dataset.status).toBe('streaming'))
    const shown = Number(document.querySelector('output')?.textContent)
    fireEvent.click(stop)
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull()
    await served.agent.runtime.idle()
    const events = await served.agent.runtime.log.session(id).read()
    const command = events.find((event) => (event.payload as { action?: string }).action === 'stop')
    expect(command?.payload).toMatchObject({ action: 'stop', frontier: shown })
    expect(served.resumes).toHaveLength(1)
  })

  it('approves a tool call from state.pendingApprovals (the ApprovalControls sample)', async () => {
    const served = await servedAgent(
      [
        toolCalls({ toolCallId: 'call-1', toolName: 'closeTicket', input: { ticketId: 'T-9' } }),
        text('Closed T-9.'),
      ],
      {
        tools: {
          closeTicket: tool({
            inputSchema: z.object({ ticketId: z.string() }),
            execute: async ({ ticketId }) => ({ ticketId, closed: true }),
          }),
        },
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      },
    )
    routes.set('/api/tools', served.api)
    const id = freshId()
    await served.agent.session(id).append(...inputs.message(message('m1', 'Close T-9')))
    render(<ApprovalControls sessionId={id} />)
    fireEvent.click(await screen.findByRole('button', { name: 'Allow' }, { timeout: 5_000 }))
    // Optimistic: the request leaves the screen before the server has the decision.
    expect(screen.queryByRole('button', { name: 'Allow' })).toBeNull()
    const state = await waitFor(
      async () => {
        const { state } = await served.agent.session(id).state()
        expect(textOf(state.messages[1])).toContain('Closed T-9.')
        return state
      },
      { timeout: 5_000 },
    )
    expect(state.messages[1]?.parts).toContainEqual(
      expect.objectContaining({
        toolCallId: 'call-1',
        state: 'output-available',
        output: { ticketId: 'T-9', closed: true },
      }),
    )
  })

  it('reorders and removes queued messages (the Queue sample)', async () => {
    const served = await servedAgent([
      { hang: true, parts: text('Busy', { chunks: 1 }).slice(0, 3) },
    ])
    routes.set('/api/agent', served.api)
    const id = freshId()
    const session = served.agent.session(id)
    await session.append(...inputs.message(message('m1', 'First')))
    await session.append(...inputs.message(message('q1', 'Second')))
    await session.append(...inputs.message(message('q2', 'Third')))
    render(<Queue sessionId={id} />)
    const list = await screen.findByRole('list', { name: 'Queued messages' }, { timeout: 5_000 })
    await waitFor(() => expect(list.textContent).toContain('Third'))
    const items = () => [...list.querySelectorAll('li > span')].map((span) => span.textContent)
    expect(items()).toEqual(['Second', 'Third'])
    fireEvent.click(screen.getAllByRole('button', { name: 'Move to end' })[0] as HTMLElement)
    expect(items()).toEqual(['Third', 'Second'])
    fireEvent.click(screen.getAllByRole('button', { name: 'Remove' })[0] as HTMLElement)
    expect(items()).toEqual(['Second'])
    await waitFor(async () => {
      const { state } = await session.state()
      expect(state.inbox.items.map((item) => item.id)).toEqual(['q1'])
    })
    fireEvent.click(screen.getByRole('button', { name: 'Pause after this turn' }))
    expect(screen.getByRole('button', { name: 'Resume' })).toBeTruthy()
  })

  it("folds the contract's reducer in the browser (the Desk sample)", async () => {
    const served = await servedAgent([text('unused')], { contract: supportDesk } as never)
    routes.set('/api/support', served.api)
    const id = freshId()
    await served.agent.session(id).append({ type: 'plan.changed', payload: { plan: 'pro' } })
    render(<Desk id={id} />)
    expect(
      await screen.findByText('pro plan, 0 flagged tickets', {}, { timeout: 5_000 }),
    ).toBeTruthy()
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Flag T-1' }))
    })
    expect(await screen.findByText('pro plan, 1 flagged tickets')).toBeTruthy()
  })
})
