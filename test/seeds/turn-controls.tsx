// Tools and approvals: "Interrupt and retry"
'use client'
import { useAgent } from 'a2-aws/ai/react'
import type { assistant } from './assistant.ts'

export function TurnControls({ sessionId }: { sessionId: string }) {
  const { state, status, stop, retry } = useAgent<typeof assistant>({
    api: '/api/agent',
    id: sessionId,
  })

  if (status === 'failed') return <button onClick={() => void retry()}>Retry</button>
  return state.active ? <button onClick={() => void stop()}>Stop</button> : null
}
