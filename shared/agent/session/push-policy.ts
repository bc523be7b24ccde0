import { HttpError } from '../../http/http-error.ts'
import type { ContractEvents } from '../../log/contract.ts'
import type { EventInput } from '../../log/event.ts'
import { isAIEventType } from '../../model/events/ai-events.ts'
import { type ControlRequest, controlRequestSchema } from '../../model/events/control.ts'
import { browserMayPush } from '../../model/events/control-actions.ts'

/**
 * Who may push what through an agent's HTTP endpoint, the one place it is
 * decided: a browser pushes user messages, the controls a user gives, and
 * the app's own contract events. Everything else `ai.*` is written by the
 * server (the lanes, as A2, with reserved IDs; trusted server code through
 * `agent.session()`), so a push of it is refused with 400
 * `SERVER_EVENT_REFUSED`, and an event type the contract does not declare
 * with 400 `UNKNOWN_EVENT_TYPE`. A malformed command is left to the log's
 * validation (400 `INVALID_EVENT`), which says what is wrong with it.
 */
export function browserPushPolicy(
  agentName: string,
  appEvents: ContractEvents,
): (events: readonly EventInput[]) => void {
  return (events) => {
    for (const event of events) {
      if (typeof event !== 'object' || event === null || typeof event.type !== 'string') continue
      if (isAIEventType(event.type)) {
        if (!serverAuthored(event)) continue
        const action =
          event.type === 'ai.control.requested'
            ? ` (${(event.payload as { action?: string } | null)?.action})`
            : ''
        throw new HttpError(
          400,
          'SERVER_EVENT_REFUSED',
          `"${event.type}"${action} is written by the server; browsers push user messages and controls`,
        )
      }
      if (!Object.hasOwn(appEvents, event.type)) {
        throw new HttpError(
          400,
          'UNKNOWN_EVENT_TYPE',
          `Unknown event type "${event.type}" for agent "${agentName}"`,
        )
      }
    }
  }
}

/** Whether an `ai.*` event is the server's to write: all but a browser's commands. */
function serverAuthored(event: EventInput): boolean {
  if (event.type !== 'ai.control.requested') return true
  const command = controlRequestSchema.safeParse(event.payload)
  // Invalid: the log's validation refuses it with its reason.
  if (!command.success) return false
  return !browserMayPush(command.data as ControlRequest)
}
