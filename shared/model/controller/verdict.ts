import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import type { ControlRequest } from '../events/control.ts'
import type { ControlChange, RejectionReason } from '../events/controller-events.ts'

// What judging one control request yields, before `decide` wraps it in the
// committed event and the receipt: a rejection, the changes to commit (with
// events to append before or after them), or admission of a turn right away.

export type Verdict<M extends UIMessage> =
  | { reject: RejectionReason }
  | { changes: ControlChange[]; before?: AIEventInput<M>[]; after?: AIEventInput<M>[] }
  | { admitNow: { passive: boolean } }

/** The request of one `action`, narrowed from the contract's union. */
export type RequestOf<M extends UIMessage, A extends ControlRequest<M>['action']> = Extract<
  ControlRequest<M>,
  { action: A }
>

export const reject = (reason: RejectionReason): { reject: RejectionReason } => ({
  reject: reason,
})
