import type { SomeErrorStatuses } from '../../log/error-statuses.ts'
import { LOG_ERROR_STATUSES } from '../../log/errors.ts'
import { INSPECT_ERROR_STATUSES } from '../../model/inspect/state-at.ts'
import { HANDLER_CONTEXT_ERROR_STATUSES } from '../../runtime/handler-context.ts'
import { SCHEDULER_ERROR_STATUSES } from '../../runtime/in-process-scheduler.ts'
import { HARNESS_ERROR_STATUSES } from '../harness/harness-errors.ts'
import { STEP_ERROR_STATUSES } from '../lanes/durable-steps.ts'
import { SESSION_ERROR_STATUSES } from '../session/session-active-error.ts'
import { TIMER_ERROR_STATUSES } from '../timers/timer-target.ts'

/**
 * The HTTP status of every code an agent's endpoint may meet, merged from
 * the table each layer keeps beside the codes it declares: the agent is
 * the layer that sees them all, so it is the one that hands them to the
 * edge (`logEndpoint`'s `errorStatuses`). The HTTP edge's own codes carry
 * their status (`HttpError`); the stores throw the log's codes.
 */
export const AGENT_ERROR_STATUSES: SomeErrorStatuses = {
  ...LOG_ERROR_STATUSES,
  ...INSPECT_ERROR_STATUSES,
  ...SCHEDULER_ERROR_STATUSES,
  ...HANDLER_CONTEXT_ERROR_STATUSES,
  ...TIMER_ERROR_STATUSES,
  ...SESSION_ERROR_STATUSES,
  ...STEP_ERROR_STATUSES,
  ...HARNESS_ERROR_STATUSES,
}
