// Introduction: "Choose the model"
import { agent } from 'a2-aws/ai/server'

export const fastAssistant = agent({
  name: 'fast-support',
  model: { model: 'openai/gpt-5.6-terra', reasoning: 'low', speed: 'fast' },
})
