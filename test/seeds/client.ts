// Introduction: "Start a session from another page" (the shared client)
'use client'
import { createAgentClient } from 'a2-aws/ai/client'
import type { assistant } from './assistant.ts'

export const assistantClient = createAgentClient<typeof assistant>({
  api: '/api/agent',
})
