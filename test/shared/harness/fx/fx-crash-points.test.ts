import { afterAll, describe, expect, it } from 'vitest'
import { fxHarness } from '../../../../shared/harness/fx/index.ts'
import { memoryEventStore } from '../../../../shared/stores/memory/memory-event-store.ts'
import { type CrashPointsOptions, crashPoints } from '../../../../shared/testing/crash-points.ts'
import { runConversation } from '../../../../shared/testing/crash-run.ts'
import { text, toolCalls } from '../../../../shared/testing/index.ts'
import { acpPeerCommand, acpPeerDir } from '../../../support/acp-subject.ts'

// The crash kit through the FX harness: a real ACP agent process
// (test/support/acp-peer.ts) answers each prompt by its text, as a
// deterministic agent would whichever A2 process sends it, so a recovered
// turn (a new ACP session, the conversation so far from the log) gets the
// same answer. Every store write and wake-up is a crash point; the agent's
// own tool runs are its own (see docs/harnesses.md), so only the log is
// checked: the transcript, no event lost, no duplicate, the turn completed.
// Each run starts agent processes, so `npm test` crashes at a sample of
// points; `npm run test:crash-harnesses` at every one.
const matrix = process.env.A2_CRASH_MATRIX === 'all'
const points: CrashPointsOptions['points'] = matrix ? 'all' : { sample: 4 }
const timeout = matrix ? 3_600_000 : 120_000

const ownTool = [
  ...toolCalls({ toolCallId: 'c1', toolName: 'list', input: { what: 'files' } }).slice(0, -1),
  ...text('Two files.').slice(1),
]
const asksFirst = [
  ...toolCalls({ toolCallId: 'c1', toolName: 'act', input: { what: 'deploy' } }).slice(0, -1),
  ...text('Deployed.').slice(1),
]

const peers: { remove(): void }[] = []
afterAll(() => {
  for (const peer of peers) peer.remove()
})

/** An agent on the FX harness whose ACP agent answers each prompt from `byPrompt`. */
function fxAgent(byPrompt: Record<string, unknown>, approvals: readonly string[] = []) {
  const peer = acpPeerDir(byPrompt, approvals)
  peers.push(peer)
  return {
    name: 'fx-crash-points',
    // Each process's agent process goes soon after its turn: runs leave none behind.
    harness: fxHarness({ command: acpPeerCommand(peer.dir), idleMs: 50 }),
  }
}

describe('crash points of a conversation through the FX harness (memory store)', () => {
  it(
    "Given two turns, the first with the agent's own tool call, When the process dies at a crash point, Then a fresh process's new ACP session answers with the uncrashed transcript",
    async () => {
      const report = await crashPoints({
        agent: fxAgent({ 'List the files': ownTool, 'And the biggest?': text('a.txt.') }),
        model: [],
        conversation: [{ user: 'List the files' }, { user: 'And the biggest?' }],
        points,
      })
      expect(report.failures).toEqual([])
      expect(report.runs).toBeGreaterThan(matrix ? report.points : 4)
      expect(report.labels).toContain('before store.append(tool.called)')
    },
    timeout,
  )

  it(
    "Given the agent's permission request, When the process dies at a crash point and the user answers, Then the turn completes once with the uncrashed transcript",
    async () => {
      const agent = fxAgent({ Deploy: asksFirst }, ['act'])
      const conversation = [{ user: 'Deploy' }, { approve: true }] as const
      // In `npm test`, the points that matter most besides the sample: dead
      // while the agent waits for permission, and dead with the user's answer
      // in the log, decided where it was written (decided-push.ts: the
      // recovered turn's agent asks again and must get that answer).
      const { labels } = await runConversation({
        agent,
        model: [],
        conversation,
        effects: [],
        store: (now) => memoryEventStore({ now }),
        sessionId: 'labels',
      })
      const nth = (label: string, occurrence: number) =>
        labels.flatMap((seen, k) => (seen === label ? [k + 1] : []))[occurrence - 1] as number
      const telling = [
        nth('after store.append(approval.requested)', 1),
        nth('after store.append(control.requested, control.committed, control.decided)', 1),
      ]
      expect(telling.every((point) => point > 0)).toBe(true)
      const report = await crashPoints({
        agent,
        model: [],
        conversation,
        points: matrix
          ? 'all'
          : [...new Set([...telling, ...[0.25, 0.75].map((at) => Math.round(labels.length * at))])],
      })
      expect(report.failures).toEqual([])
      expect(report.labels).toContain('before store.append(approval.requested)')
    },
    timeout,
  )
})
