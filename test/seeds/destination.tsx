// Introduction: "Pass the same client to the destination's hook"
'use client'
import type { StateSnapshot } from 'a2-aws'
import type { AIState } from 'a2-aws/ai'
import { useAgent } from 'a2-aws/ai/react'
import type { assistant } from './assistant.ts'
import { assistantClient } from './client.ts'

export function Destination({
  sessionId,
  initial,
}: {
  sessionId: string
  initial: StateSnapshot<AIState>
}) {
  const { messages } = useAgent<typeof assistant>({
    client: assistantClient,
    id: sessionId,
    initial,
  })
  return <p>{messages.length} messages</p>
}
