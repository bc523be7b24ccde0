// The seeds' samples under each harness type: "By default it's `{ type:
// 'ai-sdk' }` ... The same agent can run FX's or Pi's loop instead", and
// "`model` is an AI Gateway model ID, under every harness". The tools and
// approval sample ("Add tools and approval", with-tools.ts) and the
// compaction sample ("Compact long conversations") on Pi's loop, and the
// agent on FX's (FX runs its own tools and context, so it takes neither: see
// docs/harnesses.md). The seeds write `{ type: 'ai-sdk' }`; the other loops
// come from their own entry points, as `piHarness()` and `fxHarness()`.

import { agent } from 'a2-aws/ai/server'
import { fxHarness } from 'a2-aws/harness/fx'
import { piHarness } from 'a2-aws/harness/pi'
import { tool } from 'ai'
import { z } from 'zod'

const tools = {
  closeTicket: tool({
    description: 'Close a resolved support ticket',
    inputSchema: z.object({ ticketId: z.string() }),
    execute: async ({ ticketId }, { toolCallId }) => {
      // your side effect; toolCallId makes a stable idempotency key:
      // await closeTicket(ticketId, { idempotencyKey: toolCallId })
      return { ticketId, closed: true }
    },
  }),
}

export const piToolsAssistant = agent({
  name: 'support-tools',
  model: 'openai/gpt-5.6-terra',
  tools,
  harness: piHarness({
    generation: {
      toolApproval: {
        closeTicket: 'user-approval',
      },
    },
  }),
})

export const piCompactedAssistant = agent({
  name: 'compacted-agent',
  model: 'openai/gpt-5.6-terra',
  harness: piHarness({
    // optional: compaction is automatic for supported Gateway models
    compaction: {
      thresholdTokens: 80_000,
      instructions: 'Preserve exact IDs.',
    },
  }),
})

export const fxAssistant = agent({
  name: 'support-fx',
  model: 'openai/gpt-5.6-terra',
  harness: fxHarness(),
})
