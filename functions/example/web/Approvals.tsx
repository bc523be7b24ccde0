import type { AIState } from 'a2-aws/ai'
import type { UseAgentResult } from 'a2-aws/ai/react'
import { ToolValue } from './ToolValue.tsx'

const toolTitles: Record<string, string> = {
  closeTicket: 'Close a ticket',
  setReminder: 'Set a reminder',
}

/** The tool calls waiting for the user's answer. */
export function Approvals({
  approvals,
  approve,
  deny,
}: {
  approvals: AIState['pendingApprovals']
  approve: UseAgentResult['approve']
  deny: UseAgentResult['deny']
}) {
  if (approvals.length === 0) return null
  return (
    <ul className="approvals" aria-label="Approvals">
      {approvals.map((approval) => (
        <li key={approval.approvalId} className="approval">
          <div>
            <p className="approval-title">
              The agent wants to: {toolTitles[approval.toolName] ?? approval.toolName}
            </p>
            <div className="approval-input">
              <ToolValue value={approval.input ?? {}} />
            </div>
          </div>
          <div className="buttons">
            <button
              type="button"
              className="secondary"
              onClick={() => void deny(approval, { reason: 'Denied by the user' })}
            >
              Deny
            </button>
            <button type="button" className="primary" onClick={() => void approve(approval)}>
              Allow
            </button>
          </div>
        </li>
      ))}
    </ul>
  )
}
