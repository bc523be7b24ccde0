// The inspector's pure core: a session's log as a timeline, the state at
// any index, the difference between two, and why the session is not moving.
// The CLI (`npx a2-aws inspect`) and the example page's panel render these.
export {
  type ClaimView,
  claimKeysToRead,
  type DiagnoseOptions,
  type Diagnosis,
  diagnose,
  type SessionStatus,
  type Wait,
} from './diagnose.ts'
export type { EventAuthor } from './event-summary.ts'
export { headOf, IndexOutOfRangeError, stateAt, statesByIndex } from './state-at.ts'
export { diffAt, diffStates, type StateChange } from './state-diff.ts'
export { type TimelineLine, timeline } from './timeline.ts'
