import { tool } from 'ai'
import { z } from 'zod'
import type { AgentOptions } from '../../shared/agent/index.ts'
import { BEDROCK_PREFIX } from '../../shared/agent/model-step/bedrock-model-id.ts'
import { OFFLINE_MODEL_ID } from '../../shared/agent/model-step/offline-model.ts'
import { handlerContext, inputs } from '../../shared/ai.ts'
import { type GatewayEnv, gatewaySettings } from './gateway-origin.ts'
import { REMINDER_METADATA } from './message-metadata.ts'

/**
 * The example agent's tools: one needs the user's approval, one sets a timer.
 * @internal Exported for the tests' agents (knip --production).
 */
export const supportTools = {
  closeTicket: tool({
    description: 'Close a resolved support ticket',
    inputSchema: z.object({ ticketId: z.string() }),
    execute: async ({ ticketId }) => {
      // A real side effect passes this key to its API: the same on every
      // retry of this call, another for the next call even when the provider
      // names every call `call_0` (keyed on the tool call ID alone, the API
      // would take the second ticket's close for a retry of the first).
      return { ticketId, closed: true, idempotencyKey: handlerContext().idempotencyKey }
    },
  }),
  setReminder: tool({
    description: 'Set a reminder for yourself; it arrives later as a user message',
    inputSchema: z.object({
      delaySeconds: z
        .number()
        .int()
        .min(1)
        .max(6 * 24 * 60 * 60),
      reminder: z.string(),
    }),
    execute: async ({ delaySeconds, reminder }, { toolCallId }) => {
      const ctx = handlerContext()
      await ctx.session.schedule(
        `reminder:${toolCallId}`,
        { delay: `${delaySeconds}s` },
        ...inputs.message({
          id: `reminder:${ctx.event.id}`,
          role: 'user',
          // Nobody typed it: the metadata says so, for the chat page's label.
          metadata: REMINDER_METADATA,
          parts: [{ type: 'text', text: `Reminder: ${reminder}` }],
        }),
      )
      return { scheduled: true, delaySeconds }
    },
  }),
}

/**
 * The example support agent, without its store: the embedded server and the
 * AWS functions add theirs. With `A2_MODEL=bedrock:<model or inference
 * profile ID>` it uses that model on Amazon Bedrock (the AWS credentials of
 * the environment sign its requests: no key); otherwise, with
 * `AI_GATEWAY_API_KEY`, a real model through AI Gateway (`A2_MODEL`, default
 * `openai/gpt-5.6-terra`); without either, or with `A2_MODEL=offline`, the
 * offline demo model.
 * `A2_GATEWAY_URL` moves AI Gateway (its catalog here; the entry point sets
 * the provider model IDs resolve through: see `gatewaySettings()`).
 * `A2_CLAIM_TTL_MS` shortens how long a dead worker's claim holds its work
 * (`npm run local` sets it: see `LOCAL_CLAIM_TTL_MS`); unset, the agent's
 * default (30 s), as deployed.
 */
export function supportAgentOptions(
  env: GatewayEnv & { A2_MODEL?: string; A2_CLAIM_TTL_MS?: string } = {},
) {
  const onBedrock = env.A2_MODEL?.startsWith(BEDROCK_PREFIX) ?? false
  const online = env.A2_MODEL !== OFFLINE_MODEL_ID && (onBedrock || Boolean(env.AI_GATEWAY_API_KEY))
  const gateway = gatewaySettings(env)
  const claimTtlMs = Number(env.A2_CLAIM_TTL_MS)
  return {
    name: 'support-agent',
    ...(Number.isInteger(claimTtlMs) && claimTtlMs > 0 ? { claimTtlMs } : {}),
    model: online ? (env.A2_MODEL ?? 'openai/gpt-5.6-terra') : OFFLINE_MODEL_ID,
    ...(gateway ? { modelCatalog: gateway.modelCatalog } : {}),
    instructions: 'Help the customer. Be concise. Ask before closing tickets.',
    tools: supportTools,
    harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
    online,
  } satisfies AgentOptions<typeof supportTools> & { online: boolean }
}
