// Conversations: "Store assistant metadata"

import { agentContract } from 'a2-aws/ai'
import { agent } from 'a2-aws/ai/server'
import type { LanguageModelUsage, UIMessage } from 'ai'

export type MetadataAssistantMessage = UIMessage<{
  status: 'writing' | 'complete'
  usage?: LanguageModelUsage
}>

export const metadataAssistant = agent({
  contract: agentContract<MetadataAssistantMessage>({
    name: 'metadata-assistant',
  }),
  model: 'openai/gpt-5.6-terra',
  harness: {
    type: 'ai-sdk',
    messageMetadata: ({ part }) => {
      if (part.type === 'start') return { status: 'writing' as const }
      if (part.type === 'finish') {
        return { status: 'complete' as const, usage: part.totalUsage }
      }
      return undefined
    },
  },
})
