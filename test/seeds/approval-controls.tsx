// Tools and approvals: "Answer approvals"
'use client'
import { useAgent } from 'a2-aws/ai/react'
import type { toolsAssistant } from './with-tools.ts'

export function ApprovalControls({ sessionId }: { sessionId: string }) {
  const { state, approve, deny } = useAgent<typeof toolsAssistant>({
    api: '/api/tools',
    id: sessionId,
  })

  return state.pendingApprovals.map((approval) => (
    <div key={approval.approvalId}>
      <span>Allow tool call {approval.toolCallId}?</span>
      <button onClick={() => void approve(approval)}>Allow</button>
      <button onClick={() => void deny(approval, { reason: 'Denied by the user' })}>Deny</button>
    </div>
  ))
}
