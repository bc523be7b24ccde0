// Tools and approvals: "Add tools and approval"

import { agent } from 'a2-aws/ai/server'
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

export const toolsAssistant = agent({
  name: 'support-tools',
  model: 'openai/gpt-5.6-terra',
  tools,
  harness: {
    type: 'ai-sdk',
    generation: {
      toolApproval: {
        closeTicket: 'user-approval',
      },
    },
  },
})
