// Introduction: "Render the conversation" (the server half)
import type { StateSnapshot } from 'a2-aws'
import type { AIState } from 'a2-aws/ai'
import { assistant } from './assistant.ts'

export async function initialState(sessionId: string): Promise<StateSnapshot<AIState>> {
  const initial = await assistant.session(sessionId).state()
  return initial
}
