// Conversations: "Replace generation, not durability"

import { agent } from 'a2-aws/ai/server'
import { convertToModelMessages, streamText } from 'ai'

export const customGeneration = agent({
  name: 'custom-generation',
  model: 'openai/gpt-5.6-terra',
  harness: {
    type: 'ai-sdk',
    generate: async ({ event, messages, model, instructions, signal }) => {
      const result = streamText({
        model,
        messages: await convertToModelMessages(messages),
        abortSignal: signal,
        ...(instructions === undefined ? {} : { instructions }),
      })

      return result.toUIMessageStream({
        originalMessages: messages,
        generateMessageId: () => event.payload.responseMessageId,
      })
    },
  },
})
