// A real ACP agent on a script, written with @agentclientprotocol/sdk and
// run as a child process over stdio (`node test/support/acp-peer.ts DIR`):
// the FX harness's peer in tests. DIR holds `script.json` ({ steps,
// approvals, byPrompt }: the model-script steps it plays, one per prompt
// turn, and the tools it asks permission for; or, with `byPrompt`, the step
// for each prompt by its last text, as a deterministic agent answers the
// same prompt alike whichever process sends it); it appends each prompt to `calls.jsonl`
// (which also says which step comes next, across processes), each answer
// to its permission requests to `permissions.jsonl`, its process ID to
// `pids.jsonl`, and plays a
// hanging step's rest once `released` exists.
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import * as acp from '@agentclientprotocol/sdk'

type Part = { type: string; [key: string]: unknown }
type Step = Part[] | { error: string } | { hang: true; parts?: Part[]; afterRelease?: Part[] }

const dir = process.argv[2] as string
const { steps, approvals, byPrompt } = JSON.parse(
  readFileSync(join(dir, 'script.json'), 'utf8'),
) as {
  steps: Step[]
  approvals: string[]
  byPrompt?: Record<string, Step>
}
appendFileSync(join(dir, 'pids.jsonl'), `${process.pid}\n`)
const cancelled = new Map<string, AbortController>()
let sessions = 0

const callsSoFar = (): number =>
  existsSync(join(dir, 'calls.jsonl'))
    ? readFileSync(join(dir, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean).length
    : 0

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

acp
  .agent({ name: 'scripted-acp-peer' })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {},
  }))
  .onRequest(acp.methods.agent.session.new, () => ({
    sessionId: `peer-${process.pid}-${++sessions}`,
  }))
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    cancelled.get(params.sessionId)?.abort()
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params
    const abort = new AbortController()
    cancelled.set(sessionId, abort)
    const index = callsSoFar()
    const texts = params.prompt.flatMap((block) => (block.type === 'text' ? [block.text] : []))
    appendFileSync(
      join(dir, 'calls.jsonl'),
      `${JSON.stringify({
        modelId: 'acp',
        system: undefined,
        messages: texts.map((text) => ({ role: 'user', text })),
        tools: [],
        body: params,
      })}\n`,
    )
    const step = byPrompt ? byPrompt[texts.at(-1) ?? ''] : steps[index]
    if (step === undefined) {
      throw new Error(
        byPrompt
          ? `The script has no step for ${JSON.stringify(texts.at(-1))}`
          : `The script has no step ${index + 1}`,
      )
    }
    if (!Array.isArray(step) && 'error' in step) throw new acp.RequestError(-32603, step.error)
    const update = (change: acp.SessionUpdate) =>
      client.notify(acp.methods.client.session.update, { sessionId, update: change })
    const play = async (parts: readonly Part[]) => {
      for (const part of parts) {
        if (abort.signal.aborted) return
        if (part.type === 'text-delta') {
          await update({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: part.delta as string },
          })
        } else if (part.type === 'reasoning-delta') {
          await update({
            sessionUpdate: 'agent_thought_chunk',
            content: { type: 'text', text: part.delta as string },
          })
        } else if (part.type === 'tool-call') {
          const toolCallId = part.toolCallId as string
          const name = part.toolName as string
          const input = JSON.parse(part.input as string) as { what?: string }
          await update({
            sessionUpdate: 'tool_call',
            toolCallId,
            title: name,
            name,
            kind: 'other',
            status: 'pending',
            rawInput: input,
          })
          let allowed = true
          if (approvals.includes(name)) {
            const answer = await client.request(acp.methods.client.session.requestPermission, {
              sessionId,
              toolCall: { toolCallId, title: name, name, rawInput: input },
              options: [
                { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
                { optionId: 'no', name: 'Reject', kind: 'reject_once' },
              ],
            })
            appendFileSync(join(dir, 'permissions.jsonl'), `${JSON.stringify(answer.outcome)}\n`)
            if (answer.outcome.outcome === 'cancelled') return
            allowed = answer.outcome.optionId === 'yes'
          }
          await update({
            sessionUpdate: 'tool_call_update',
            toolCallId,
            status: allowed ? 'completed' : 'failed',
            rawOutput: allowed ? { done: input.what } : 'Rejected by the user',
          })
        }
      }
    }
    if (Array.isArray(step)) await play(step)
    else {
      await play(step.parts ?? [])
      while (!abort.signal.aborted && !existsSync(join(dir, 'released'))) await sleep(10)
      await play(step.afterRelease ?? [])
    }
    cancelled.delete(sessionId)
    return { stopReason: abort.signal.aborted ? 'cancelled' : 'end_turn' }
  })
  .connect(
    acp.ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    ),
  )
