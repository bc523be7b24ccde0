// Conversations: "Checkpoints and recovery reads"

import type { TranscriptMessage } from 'a2-aws/ai'
import type { UIMessage } from 'ai'
import { assistant } from './assistant.ts'

export async function readMessages(sessionId: string): Promise<TranscriptMessage<UIMessage>[]> {
  const snapshot = await assistant.session(sessionId).state()
  return snapshot.state.messages
}
