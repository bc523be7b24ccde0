// Conversations: "Serve it with agent({ contract })"
import { agent } from 'a2-aws/ai/server'
import { supportDesk } from './support-desk.ts'

export const supportDeskAgent = agent({
  contract: supportDesk,
  model: ({ state }) =>
    state.plan === 'pro'
      ? { model: 'openai/gpt-5.6-terra', reasoning: 'high' }
      : { model: 'openai/gpt-5.6-luna', speed: 'fast' },
  handlers: {
    'ticket.flagged': async ({ event }) => {
      // your side effect; event.id makes a stable idempotency key:
      // await notifyOnCall(event.payload.ticketId, { idempotencyKey: event.id })
    },
  },
})
