import { safeValidateTypes } from '@ai-sdk/provider-utils'
import { asSchema, type ToolSet } from 'ai'
import type { AIState, ToolRecord } from '../../model/state/ai-state.ts'
import { toolCallInput } from '../../model/state/tool-call-input.ts'
import type { CompatibilityFinding } from './compatibility-report.ts'

/** What a not yet terminal call waits for, as the report says it. */
const WAITING: Partial<Record<ToolRecord['status'], string>> = {
  'awaiting-approval': 'awaits approval',
  running: 'is approved or called and has not run',
  interrupted: 'was interrupted and runs again on Resume',
}

/**
 * The recorded calls the new code will still run (awaiting approval,
 * running, interrupted; A2's own, not a provider's), each checked against
 * the new tools: one it no longer has gets the error result `Unknown tool`
 * once it runs, and one whose recorded input the new `inputSchema` refuses
 * is refused when it runs (the tools lane checks a call made under another
 * version again): the model gets the refusal as the call's error, and the
 * tool's work is not done.
 */
export async function checkPendingTools(
  sessionId: string,
  state: AIState,
  tools: ToolSet,
  findings: CompatibilityFinding[],
): Promise<void> {
  for (const record of state.tools) {
    const waiting = WAITING[record.status]
    if (waiting === undefined || record.providerExecuted === true) continue
    const { toolName, toolCallId } = record
    const at = {
      sessionId,
      toolName,
      toolCallId,
      ...(record.called ? { index: record.called.index, type: 'ai.tool.called' } : {}),
    }
    const call = `tool call ${toolCallId} of "${toolName}"${record.called ? ` (event ${record.called.index})` : ''} ${waiting}`
    const definition = Object.hasOwn(tools, toolName) ? tools[toolName] : undefined
    if (definition === undefined) {
      findings.push({
        kind: 'tool-removed',
        ...at,
        message: `${call}, and the new code has no tool "${toolName}": when it runs it gets the error result 'Unknown tool "${toolName}"' (keep the tool until such calls are settled, or settle them before the deploy)`,
      })
      continue
    }
    if (definition.inputSchema === undefined) continue
    const input = inputOf(state, record)
    const checked = await safeValidateTypes({
      value: input,
      schema: asSchema(definition.inputSchema),
    })
    if (checked.success) continue
    const issue = firstIssue(checked.error)
    findings.push({
      kind: 'tool-input-refused',
      ...at,
      path: issue.path,
      message: `${call}, and the new inputSchema of "${toolName}" refuses its recorded input at ${issue.path} (${issue.message}): the call will be refused when it runs (the model gets the reason as its error, the tool does nothing); accept the old input in the schema, or settle such calls before the deploy`,
    })
  }
}

/** The call's input: the pending approval's, else its part in the response message (as the tools lane reads it). */
function inputOf(state: AIState, record: ToolRecord): unknown {
  const approval = state.pendingApprovals.find(
    (pending) => pending.toolCallId === record.toolCallId,
  )
  if (approval && 'input' in approval) return approval.input
  return toolCallInput(state, record)
}

/** The schema's first issue (zod's, under the AI SDK's TypeValidationError), else the error's first line. */
function firstIssue(error: Error): { path: string; message: string } {
  const issues = (error.cause as { issues?: { path?: PropertyKey[]; message?: string }[] })?.issues
  const issue = issues?.[0]
  if (issue?.message !== undefined) {
    return { path: ['input', ...(issue.path ?? []).map(String)].join('.'), message: issue.message }
  }
  return { path: 'input', message: error.message.split('\n')[0] ?? error.message }
}
