import { contract } from '../../shared/log/contract.ts'
import { AI_EVENTS } from '../../shared/model/events/ai-events.ts'
import { checkInputIdentity } from '../../shared/model/events/input-identity.ts'
import { AI_STATE_REDUCER } from '../../shared/model/state/ai-state-reducer.ts'

const declared = contract({
  name: 'a2.ai',
  events: AI_EVENTS,
  reducer: AI_STATE_REDUCER,
})

/**
 * The AI protocol's events and reducer, as a core contract. Its validation
 * also holds new-input commands to their message ID. Only the tests use it.
 */
export const aiContract: typeof declared = {
  ...declared,
  validate: (event) => checkInputIdentity(declared.validate(event)),
}
