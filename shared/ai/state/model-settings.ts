/**
 * Reasoning levels a model may be asked for, in increasing effort, for a
 * picker. They are the AI SDK's call option values, without
 * `provider-default` (leave `reasoning` unset for that).
 */
export const reasoningLevels = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const

export type ReasoningLevel = (typeof reasoningLevels)[number]

/** A model with its reasoning level and speed. */
export interface ModelSettings {
  /** An AI Gateway model ID. */
  model: string
  reasoning?: ReasoningLevel
  /** `fast` prefers AI Gateway's faster tier when the model offers one. */
  speed?: 'fast' | 'standard'
}
