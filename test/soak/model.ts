import { createGateway } from '@ai-sdk/gateway'
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { installDefaultProvider } from '../../shared/testing/default-provider.ts'
import { type GatewayDouble, gatewayDouble } from '../../shared/testing/gateway-double.ts'
import {
  lastUserText,
  type ModelCall,
  type Step,
  text,
  toolCalls,
} from '../../shared/testing/model-script.ts'
import type { SessionPlan } from './plan.ts'

// The soak's model: AI Gateway's wire protocol through the real provider,
// answering each call from the session's plan. The session is named in the
// instructions (`Session <id>.`), so every call of a session (its summary
// requests included) says whose it is.

export const SOAK_MODEL = 'openai/gpt-5.6-terra'
/** A small context window, so conversations compact within a few turns. */
const SOAK_LIMITS = { contextWindow: 1_200, maxOutputTokens: 200 }

/** The instructions of a session's calls, which name it. */
export const instructionsFor = (sessionId: string): string =>
  `Session ${sessionId}. Answer in full sentences.`

/** A long answer: the transcript grows enough to compact. */
const answer = (what: string): string =>
  `${what}. ${'This answer is long enough that a few of them fill the context window. '.repeat(4)}`

/** A model call's interval, as the client saw it: when A2 asked, and when the stream ended. */
export interface CallSpan {
  sessionId: string
  startedAt: number
  endedAt?: number
}

export interface SoakModel {
  gateway: GatewayDouble
  /** Every model call A2 made, per session, with its interval. */
  spans: CallSpan[]
  close(): Promise<void>
}

/**
 * Serves the sessions' plans through a Gateway double and points model ID
 * strings at it, through a client that times each call (when the request
 * left, when its body ended or was cancelled), to check that a session's
 * model calls never overlap.
 */
export async function soakModel(plans: readonly SessionPlan[]): Promise<SoakModel> {
  const bySession = new Map(plans.map((plan) => [plan.sessionId, plan]))
  const hungOnce = new Set<string>()
  const gateway = await gatewayDouble({
    script: (call) => stepFor(call, bySession, hungOnce),
    catalog: { [SOAK_MODEL]: SOAK_LIMITS },
  })
  const spans: CallSpan[] = []
  const provider = createGateway({
    baseURL: gateway.baseURL,
    apiKey: 'test-gateway-key',
    fetch: async (input, init) => {
      const sessionId = sessionOfBody(String(init?.body ?? ''))
      const span: CallSpan = { sessionId, startedAt: performance.now() }
      spans.push(span)
      try {
        const response = await fetch(input, init)
        return response.body ? new Response(timed(response.body, span), response) : response
      } catch (error) {
        span.endedAt = performance.now()
        throw error
      }
    },
  })
  const undo = installDefaultProvider(provider)
  return {
    gateway,
    spans,
    async close() {
      undo()
      await gateway.close()
    },
  }
}

function sessionOfBody(body: string): string {
  return /Session (\S+)\./.exec(body)?.[1] ?? 'unknown'
}

/** The body as it streams, marking the span's end when it ends, errors or is cancelled. */
function timed(body: ReadableStream<Uint8Array>, span: CallSpan): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const end = () => {
    span.endedAt ??= performance.now()
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (done) {
          end()
          controller.close()
        } else controller.enqueue(value)
      } catch (error) {
        end()
        controller.error(error)
      }
    },
    cancel(reason) {
      end()
      return reader.cancel(reason)
    },
  })
}

/** A step that streams a little and then waits to be stopped or paused. */
const hanging: Step = {
  hang: true,
  parts: [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'Let me think about this for a while' },
  ] satisfies LanguageModelV4StreamPart[],
}

function stepFor(
  call: ModelCall,
  plans: ReadonlyMap<string, SessionPlan>,
  hungOnce: Set<string>,
): Step {
  const sessionId = /Session (\S+)\./.exec(call.system ?? '')?.[1] ?? 'unknown'
  const said = lastUserText(call)
  if (said.startsWith('Summarize the conversation so far')) {
    return text(`Summary of ${sessionId}: the user asked for several things.`)
  }
  const reminder = /^Reminder: (.+)$/.exec(said)
  if (reminder) return text(answer(`Reminded: ${reminder[1]}`), { chunks: 4 })
  const asked = /^\S+ t(\d+)( steered)?$/.exec(said)
  const turn = asked ? plans.get(sessionId)?.turns[Number(asked[1])] : undefined
  if (!asked || !turn) return text(answer(`Unplanned: ${said}`))
  if (asked[2]) return text(answer(`Steered in turn ${asked[1]}`), { chunks: 4 })
  // The steps this turn took so far: one assistant message each since the user's.
  const since = call.messages.slice(call.messages.findLastIndex((m) => m.role === 'user') + 1)
  const step = since.filter((message) => message.role === 'assistant').length
  if (step > 0) return text(answer(`Turn ${asked[1]} done`), { chunks: 6 })
  const position = `${sessionId}:${asked[1]}`
  switch (turn.kind) {
    case 'text':
      return text(answer(`Turn ${asked[1]}`), { chunks: 12 })
    case 'tools':
      return toolCalls(
        { toolCallId: 'call_0', toolName: 'lookup', input: { ticketId: 'T-1', ms: 5 } },
        { toolCallId: 'call_1', toolName: 'lookup', input: { ticketId: 'T-2', ms: 5 } },
      )
    case 'steer':
      // A slow lookup: the user steers while it runs.
      return toolCalls({
        toolCallId: 'call_0',
        toolName: 'lookup',
        input: { ticketId: 'T-3', ms: 300 },
      })
    case 'approve':
      return toolCalls({
        toolCallId: 'call_0',
        toolName: 'closeTicket',
        input: { ticketId: `T-${asked[1]}` },
      })
    case 'remind':
      return toolCalls({
        toolCallId: 'call_0',
        toolName: 'remind',
        input: { note: `${sessionId} t${asked[1]}`, delayMs: turn.delayMs },
      })
    case 'report':
      return toolCalls({ toolCallId: 'call_0', toolName: 'runCommand', input: { command: 'ls' } })
    case 'stop':
      return hanging
    case 'pause':
      // Hangs until Pause now cuts it; the resumed attempt answers.
      if (hungOnce.has(position)) return text(answer(`Resumed turn ${asked[1]}`), { chunks: 4 })
      hungOnce.add(position)
      return hanging
  }
}
