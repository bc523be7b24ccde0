// Introduction: "Start a session from another page"
'use client'
import { inputs } from 'a2-aws/ai'
import { assistantClient } from './client.ts'

export async function openAgent({
  sessionId,
  text,
  router,
}: {
  sessionId: string
  text: string
  router: { push(href: string): void }
}): Promise<void> {
  await assistantClient.session(sessionId).push(
    ...inputs.message({
      id: crypto.randomUUID(),
      role: 'user',
      parts: [{ type: 'text', text }],
    }),
  )
  router.push(`/agent/${sessionId}`)
}
