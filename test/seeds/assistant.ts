// Introduction: "Define the agent"
import { agent } from 'a2-aws/ai/server'

export const assistant = agent({
  name: 'support-agent',
  model: 'openai/gpt-5.6-terra',
  instructions: 'Help the customer. Be concise.',
})
