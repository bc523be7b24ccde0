import type { AgentEvent, AgentLoopConfig, AgentMessage } from '@mariozechner/pi-agent-core'
import type { AssistantMessage, Message, Model } from '@mariozechner/pi-ai'
import type { ModelMessage, ToolSet, UIMessage, UIMessageChunk } from 'ai'
import type { Harness, HarnessStepContext } from '../../agent/harness/harness.ts'
import type { HarnessAdapter } from '../../agent/harness/harness-options.ts'
import { modelMessagesOf } from '../../agent/model-step/prompt.ts'
import { messageOf } from '../../log/message-of.ts'
import { loadPi } from './load-pi.ts'
import type { PiHarnessOptions } from './pi-harness-options.ts'
import { piMessagesOf } from './pi-messages.ts'
import { a2StreamFn, chunksOfPiEvent } from './pi-stream.ts'
import { piTools } from './pi-tools.ts'

/**
 * Pi's loop as `agent({ harness })` takes it: each model call of Pi's
 * `agentLoop` is one durable A2 generation on the agent's `model`, Pi's
 * `tools` and the agent's run in A2's tools lane, and steering reaches Pi's
 * loop at the step boundary. Pi's packages (`@mariozechner/pi-agent-core`,
 * `@mariozechner/pi-ai`: optional peers, install them) are loaded on the
 * first Pi step.
 *
 * @example
 * import { agent } from 'a2-aws/ai/server'
 * import { piHarness } from 'a2-aws/harness/pi'
 *
 * export const assistant = agent({
 *   name: 'support',
 *   model: 'openai/gpt-5.6-terra',
 *   harness: piHarness({ tools: [closeTicket] }),
 * })
 */
export function piHarness<AppState = unknown, M extends UIMessage = UIMessage>(
  options: PiHarnessOptions<AppState, M> = {},
): HarnessAdapter<AppState, M> {
  // A2 reads the settings off the adapter (a spread of it may override them).
  const { generation, maxSteps, compaction } = options
  return {
    type: 'pi',
    generation,
    maxSteps,
    compaction,
    create: ({ tools }) => piLoop(options, tools),
  }
}

/**
 * Pi's loop (`@mariozechner/pi-agent-core`'s `runAgentLoop`) behind the
 * port. Each A2 step re-enters Pi's loop from the log for exactly one model
 * call: its context is the step's prompt as Pi's messages, its `streamFn`
 * runs on the agent's model, and once that call ends the loop stops
 * (`shouldStopAfterTurn`) without running a tool (`beforeToolCall` blocks:
 * A2's tools lane runs each call as soon as its input is complete). The
 * next step is the controller's to request, after the tools and approvals,
 * so a fresh process resumes Pi's loop from the log, as every step does. A
 * turn's inputs reach Pi through `getSteeringMessages` at its first step:
 * A2's inbox is Pi's steering queue, polled where Pi polls it; follow-ups
 * stay A2's admission (`getFollowUpMessages` has none).
 */
function piLoop<AppState, M extends UIMessage>(
  options: PiHarnessOptions<AppState, M>,
  tools: ToolSet,
): Harness {
  return {
    type: 'pi',
    // The tools' schemas are checked by A2 (Pi's own validation for Pi's tools).
    validatesToolInput: false,
    tools: piTools(options.tools ?? [], tools),
    compactsByDefault: options.transformContext === undefined,
    async step(context) {
      const { core, ai } = await loadPi()
      const originals = new WeakMap<object, ModelMessage>()
      const split = inputsStart(context)
      const history = piMessagesOf(
        await modelMessagesOf(context.messages.slice(0, split) as UIMessage[], context.tools),
        originals,
      )
      const steering = piMessagesOf(
        await modelMessagesOf(context.messages.slice(split) as UIMessage[], context.tools),
        originals,
      ).messages
      const systemPrompt = [context.instructions, history.systemPrompt]
        .filter((part): part is string => part !== undefined && part !== '')
        .join('\n\n')
      let handedOver = false
      const config: AgentLoopConfig = {
        model: piModelOf(context),
        convertToLlm:
          (options.convertToLlm?.bind(options) as AgentLoopConfig['convertToLlm']) ??
          ((messages: AgentMessage[]) => messages.filter(isLlmMessage)),
        ...(options.transformContext
          ? {
              transformContext: options.transformContext.bind(options) as NonNullable<
                AgentLoopConfig['transformContext']
              >,
            }
          : {}),
        getSteeringMessages: async () => {
          if (handedOver) return []
          handedOver = true
          return steering
        },
        getFollowUpMessages: async () => [],
        shouldStopAfterTurn: () => true,
        beforeToolCall: async () => ({ block: true, reason: "A2's tools lane runs this call" }),
      }
      const responseMessageId = context.event.payload.responseMessageId
      const toolNames = new Map<string, string>()
      let settleUsage: (usage: Record<string, number> | undefined) => void = () => {}
      const usage = new Promise<Record<string, number> | undefined>((resolve) => {
        settleUsage = resolve
      })
      // The lane stops reading when the step is stopped or paused: Pi's
      // loop, aborted by the same signal, may still emit before it ends.
      let cancelled = false
      const stream = new ReadableStream<UIMessageChunk>({
        cancel() {
          cancelled = true
        },
        start(raw) {
          const controller = {
            enqueue: (chunk: UIMessageChunk) => {
              if (!cancelled) raw.enqueue(chunk)
            },
            close: () => {
              if (!cancelled) raw.close()
              cancelled = true
            },
          }
          const emit = (event: AgentEvent) => {
            for (const chunk of chunksOfPiEvent(event, responseMessageId, toolNames)) {
              controller.enqueue(chunk)
            }
            if (event.type === 'message_end' && event.message.role === 'assistant') {
              settleUsage(usageOfPi(event.message as AssistantMessage))
            }
          }
          core
            .runAgentLoop(
              [],
              { systemPrompt, messages: history.messages, tools: [] },
              config,
              emit,
              context.signal,
              a2StreamFn(ai, context, originals),
            )
            .then(
              () => controller.close(),
              (error: unknown) => {
                // A hook that throws (Pi's contract says they must not) fails the step.
                controller.enqueue({
                  type: 'error',
                  errorText: messageOf(error),
                })
                controller.close()
              },
            )
            .finally(() => settleUsage(undefined))
        },
      })
      return { stream, usage }
    },
  }
}

/** Where the turn's inputs begin in the prompt: at its first step, the trailing messages the turn admitted. */
function inputsStart(context: HarnessStepContext): number {
  let split = context.messages.length
  if (context.event.payload.step !== 1) return split
  const inputs = new Set(context.turnInputIds)
  while (split > 0 && inputs.has((context.messages[split - 1] as UIMessage).id)) split--
  return split
}

function isLlmMessage(message: AgentMessage): message is Message {
  const role = (message as { role?: unknown }).role
  return role === 'user' || role === 'assistant' || role === 'toolResult'
}

/** The model as Pi's loop names it: the step's model under its ID in the log. */
function piModelOf(context: HarnessStepContext): Model<string> {
  return {
    id: context.resolved.modelId,
    name: context.resolved.modelId,
    api: 'a2-ai-sdk',
    provider: 'a2',
    baseUrl: '',
    reasoning: context.resolved.reasoning !== undefined,
    input: ['text', 'image'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 0,
    maxTokens: context.settings.maxOutputTokens ?? 0,
  }
}

function usageOfPi(message: AssistantMessage): Record<string, number> | undefined {
  if (message.stopReason === 'error' || message.stopReason === 'aborted') return undefined
  return {
    inputTokens: message.usage.input,
    outputTokens: message.usage.output,
    totalTokens: message.usage.totalTokens,
  }
}
