import { contract } from '../../log/contract.ts'
import { AI_EVENTS } from '../events/ai-events.ts'
import { checkInputIdentity } from '../events/input-identity.ts'
import { AI_STATE_REDUCER } from '../state/ai-state-reducer.ts'

const declared = contract({
  name: 'a2.ai',
  events: AI_EVENTS,
  reducer: AI_STATE_REDUCER,
})

/**
 * The AI protocol's events and reducer, as a core contract. Its validation
 * also holds new-input commands to their message ID.
 */
export const aiContract: typeof declared = {
  ...declared,
  validate: (event) => checkInputIdentity(declared.validate(event)),
}
