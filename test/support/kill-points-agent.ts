// An agent module for `npm run local` (A2_AGENT_MODULE) that a test kills
// with SIGKILL at a chosen point of a turn: the example agent, with its
// offline demo model, tools and AWS parts, that says on stdout where it is
// (`a2-kill-point <point> <sessionId>`) and, where the test asked for it,
// holds there for HOLD_MS so the kill lands at that point and not after it.
// The test asks by writing `<point> <sessionId>` lines to the file named by
// A2_KILL_POINTS_FILE, and clears it once it has killed, so that the run
// taking the work over does not hold. Spawned by path, never imported
// (knip.jsonc lists it as an entry).

import { readFileSync } from 'node:fs'
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { supportAgentOptions, supportTools } from '../../functions/example/support-agent.ts'
import { agent } from '../../shared/agent/index.ts'
import { offlineModel } from '../../shared/agent/model-step/offline-model.ts'
import { awsAgentParts } from '../../shared/aws/agent-environment.ts'
import type { EventStore } from '../../shared/log/event-store.ts'
import { sleep } from '../../shared/timing/sleep.ts'

/** The points of a turn the agent can hold at, in the order a turn passes them. */
type KillPoint =
  | 'before-first-chunk'
  | 'mid-stream'
  | 'tool-started'
  | 'effect-landed'
  | 'tool-returned'

/** Long enough for the test to see the line and kill; the kill ends the hold. */
const HOLD_MS = 3_000
const SESSION_ID = /s-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

async function at(point: KillPoint, sessionId: string | undefined): Promise<void> {
  if (!sessionId) return
  // A pipe: written at once, before the hold (stdout to a pipe is synchronous on Linux).
  process.stdout.write(`a2-kill-point ${point} ${sessionId}\n`)
  const file = process.env.A2_KILL_POINTS_FILE
  let asked = ''
  try {
    asked = file ? readFileSync(file, 'utf8') : ''
  } catch {
    // No file: nothing asked.
  }
  if (asked.split('\n').includes(`${point} ${sessionId}`)) await sleep(HOLD_MS)
}

/** The demo model, holding before its first chunk and after its first text. */
function heldModel(model: LanguageModelV4): LanguageModelV4 {
  return {
    ...model,
    async doStream(options) {
      const prompt = JSON.stringify(options.prompt)
      const sessionId = SESSION_ID.exec(prompt)?.[0]
      // The first step answers the user; the second, the tool's result.
      const answersTool = options.prompt.at(-1)?.role === 'tool'
      if (!answersTool) await at('before-first-chunk', sessionId)
      const result = await model.doStream(options)
      if (!answersTool) return result
      let texts = 0
      return {
        ...result,
        stream: result.stream.pipeThrough(
          new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
            async transform(part, controller) {
              controller.enqueue(part)
              if (part.type === 'text-delta' && ++texts === 2) await at('mid-stream', sessionId)
            },
          }),
        ),
      }
    },
  }
}

const reminder = supportTools.setReminder
type Execute = NonNullable<typeof reminder.execute>
// The example's own execute, which returns a promise of its output.
const setTimer = reminder.execute as unknown as (
  ...args: Parameters<Execute>
) => Promise<{ scheduled: boolean; delaySeconds: number }>
const tools = {
  ...supportTools,
  setReminder: {
    ...reminder,
    execute: async (input, options) => {
      const sessionId = SESSION_ID.exec(input.reminder)?.[0]
      await at('tool-started', sessionId)
      const output = await setTimer(input, options)
      // The timer is set (the tool's effect), and the tool has not returned.
      await at('effect-landed', sessionId)
      return output
    },
  } satisfies typeof reminder,
}

/** The store, holding before it records a tool's result (the tool has returned). */
function heldStore(store: EventStore): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (property !== 'append' || typeof value !== 'function') return value
      return async (...args: Parameters<EventStore['append']>) => {
        const [sessionId, events] = args
        if (events.some((event) => event.type === 'ai.tool.result')) {
          await at('tool-returned', sessionId)
        }
        return value.apply(target, args)
      }
    },
  })
}

// The claim TTL `npm run local` gives the example agent (A2_CLAIM_TTL_MS), as the page's would have.
const { online: _online, ...options } = supportAgentOptions({
  ...(process.env.A2_CLAIM_TTL_MS ? { A2_CLAIM_TTL_MS: process.env.A2_CLAIM_TTL_MS } : {}),
})
const aws = awsAgentParts()

export default agent({
  ...options,
  model: heldModel(offlineModel()),
  tools,
  store: heldStore(aws.store),
  dispatcher: aws.dispatcher,
  scheduler: aws.scheduler,
})
