import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { fxHarness } from '../../../../shared/harness/fx/index.ts'
import { memoryEventStore } from '../../../../shared/index.ts'
import {
  describeHarnessConformance,
  reasoning,
  text,
  toolCalls,
} from '../../../../shared/testing/index.ts'
import { acpPeerCommand, acpPeerDir, acpSubject } from '../../../support/acp-subject.ts'
import { textOf, track, until, userMessage } from '../../../support/agent-log.ts'

describeHarnessConformance('fx over ACP', acpSubject(), { describe, it, expect })

/** The session's state once its turn has ended. */
async function settled(a: ReturnType<typeof agent>) {
  return until(async () => {
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    return state.active === null ? state : undefined
  })
}

/** An agent on the FX harness, driving the scripted ACP peer in `dir`. */
const fxAgent = (dir: string, harness: { idleMs?: number } = {}) =>
  agent({
    name: 'fx',
    model: 'openai/gpt-5.6-terra',
    harness: fxHarness({ command: acpPeerCommand(dir), ...harness }),
  })

/** A turn in which the peer calls its `act` tool (asking permission), then answers `reply`. */
const actingThenSaying = (what: string, reply: string) => [
  ...toolCalls({ toolCallId: 'c1', toolName: 'act', input: { what } }).slice(0, -1),
  ...text(reply).slice(1),
]

describe('the FX harness', () => {
  it('streams a real ACP agent process: its reasoning and text as progress, its own tool call with its result', async () => {
    const peer = acpPeerDir([
      [
        ...reasoning('Look first.', 'Listed.').slice(0, 4),
        ...toolCalls({ toolCallId: 'c1', toolName: 'list', input: { what: 'files' } }).slice(1, -1),
        ...text('Listed.').slice(1),
      ],
    ])
    try {
      const a = track(fxAgent(peer.dir))
      await a.session('s').append(...inputs.message(userMessage('m1', 'What is here?')))
      const state = await settled(a)
      const answer = state.messages.at(-1)
      expect(answer?.role).toBe('assistant')
      expect(answer?.parts.map((part) => part.type)).toEqual([
        'step-start',
        'reasoning',
        'tool-list',
        'text',
      ])
      expect(answer?.parts[2]).toMatchObject({
        state: 'output-available',
        providerExecuted: true,
        input: { what: 'files' },
        output: { done: 'files' },
      })
      expect(textOf(answer)).toBe('Listed.')
      expect(peer.calls().map((call) => call.messages.at(-1)?.text)).toEqual(['What is here?'])
    } finally {
      peer.remove()
    }
  })

  it("denied, the agent's permission request tells it so, and the call stays denied", async () => {
    const peer = acpPeerDir([actingThenSaying('rm -r /', 'Not removed.')], ['act'])
    try {
      const a = track(fxAgent(peer.dir))
      await a.session('s').append(...inputs.message(userMessage('m1', 'Clean up')))
      const waiting = await until(
        async () => (await a.session('s').state()).state.pendingApprovals[0],
      )
      await a
        .session('s')
        .append(...inputs.approval(waiting, { approved: false, reason: 'No', id: 'no' }))
      const state = await settled(a)
      expect(state.messages.at(-1)?.parts).toContainEqual(
        expect.objectContaining({ type: 'tool-act', state: 'output-denied' }),
      )
      expect(textOf(state.messages.at(-1))).toBe('Not removed.')
      expect(peer.permissions()).toEqual([{ outcome: 'selected', optionId: 'no' }])
    } finally {
      peer.remove()
    }
  })

  it("an idle session's agent process is closed; the next turn starts a new ACP session that gets the conversation so far", async () => {
    const peer = acpPeerDir([text('First answer.'), text('Second answer.')])
    try {
      const a = track(fxAgent(peer.dir, { idleMs: 20 }))
      await a.session('s').append(...inputs.message(userMessage('m1', 'One')))
      await until(async () => textOf((await settled(a)).messages.at(-1)) === 'First answer.')
      await new Promise((resolve) => setTimeout(resolve, 200))
      await a.session('s').append(...inputs.message(userMessage('m2', 'Two')))
      await until(async () => textOf((await settled(a)).messages.at(-1)) === 'Second answer.')
      const [first, second] = peer.calls()
      const sessionOf = (call: typeof first) =>
        (call?.body as { sessionId?: string } | undefined)?.sessionId
      expect(sessionOf(first)).not.toBe(sessionOf(second))
      expect(second?.messages.map((message) => message.text)).toEqual([
        'The conversation so far:\nuser: One\nassistant: First answer.',
        'Two',
      ])
    } finally {
      peer.remove()
    }
  })

  it('runtime.close() ends the agent processes it keeps open between turns, before their idle time', async () => {
    const peer = acpPeerDir([text('First answer.')])
    try {
      const a = fxAgent(peer.dir)
      await a.session('s').append(...inputs.message(userMessage('m1', 'One')))
      await until(async () => textOf((await settled(a)).messages.at(-1)) === 'First answer.')
      const [pid] = peer.pids()
      const alive = (id: number) => {
        try {
          process.kill(id, 0)
          return true
        } catch {
          return false
        }
      }
      expect(alive(pid as number)).toBe(true)
      a.runtime.close()
      await until(() => !alive(pid as number) || undefined)
    } finally {
      peer.remove()
    }
  })

  it('a command that does not start fails the turn with the spawn error; retry() runs it again once it does', async () => {
    const peer = acpPeerDir([text('Up now.')])
    try {
      const command = ['a2-no-such-acp-agent']
      const a = track(
        agent({ name: 'fx', model: 'openai/gpt-5.6-terra', harness: fxHarness({ command }) }),
      )
      await a.session('s').append(...inputs.message(userMessage('m1', 'Hello?')))
      const failed = await until(async () => {
        await a.runtime.idle()
        const { active } = (await a.session('s').state()).state
        return active?.phase === 'failed' ? active : undefined
      })
      expect(failed.error).toContain('ENOENT')
      command.splice(0, 1, ...acpPeerCommand(peer.dir))
      await a.session('s').append(...inputs.retry({ turnId: failed.turnId, retryId: 'r1' }))
      expect(textOf((await settled(a)).messages.at(-1))).toBe('Up now.')
    } finally {
      peer.remove()
    }
  })

  it("the agent's permission request is answered from the log: another process's approval reaches the waiting turn", async () => {
    const peer = acpPeerDir([actingThenSaying('deploy', 'Deployed.')], ['act'])
    try {
      const store = memoryEventStore()
      const options = {
        name: 'fx',
        model: 'openai/gpt-5.6-terra',
        store,
        harness: fxHarness({ command: acpPeerCommand(peer.dir) }),
      }
      const running = track(agent(options))
      const other = track(agent(options))
      await running.session('s').append(...inputs.message(userMessage('m1', 'Ship it')))
      const waiting = await until(
        async () => (await other.session('s').state()).state.pendingApprovals[0],
      )
      await other.session('s').append(...inputs.approval(waiting, { approved: true, id: 'yes' }))
      expect(textOf((await settled(running)).messages.at(-1))).toBe('Deployed.')
      expect(peer.permissions()).toEqual([{ outcome: 'selected', optionId: 'yes' }])
    } finally {
      peer.remove()
    }
  })

  it("Stop while the agent waits for permission answers it 'cancelled' and ends the turn", async () => {
    const peer = acpPeerDir([actingThenSaying('deploy', 'Deployed.')], ['act'])
    try {
      const a = track(fxAgent(peer.dir))
      await a.session('s').append(...inputs.message(userMessage('m1', 'Ship it')))
      const seen = await until(async () => {
        const snapshot = await a.session('s').state()
        return snapshot.state.pendingApprovals[0] ? snapshot : undefined
      })
      const turnId = seen.state.active?.turnId as string
      await a.session('s').append(...inputs.stop({ turnId, frontier: seen.index }))
      const state = await settled(a)
      expect(state.stoppedResponseIds).toHaveLength(1)
      await until(() => peer.permissions().length > 0)
      expect(peer.permissions()).toEqual([{ outcome: 'cancelled' }])
      expect(textOf(state.messages.at(-1))).not.toContain('Deployed.')
    } finally {
      peer.remove()
    }
  })

  it('refuses nothing of its own options at agent(): the command is an option, `fx acp` by default', () => {
    expect(() =>
      agent({ name: 'fx', model: 'openai/gpt-5.6-terra', harness: fxHarness() }),
    ).not.toThrow()
  })
})
