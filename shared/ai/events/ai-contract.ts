import { contract } from '../../log/contract.ts'
import { AI_STATE_REDUCER } from '../state/ai-state-reducer.ts'
import { AI_EVENTS } from './ai-events.ts'

/** The AI protocol's events and reducer, as a core contract. */
export const aiContract = contract({
  name: 'a2.ai',
  events: AI_EVENTS,
  reducer: AI_STATE_REDUCER,
})
