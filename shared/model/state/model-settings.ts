/**
 * Reasoning levels a model may be asked for, in increasing effort, for a
 * picker. They are the AI SDK's call option values, without
 * `provider-default` (leave `reasoning` unset for that).
 */
export const reasoningLevels = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const

export type ReasoningLevel = (typeof reasoningLevels)[number]

/** A model with its reasoning level and speed. */
export interface ModelSettings {
  /**
   * A model ID: AI Gateway's `provider/model`, or `bedrock:` and an Amazon
   * Bedrock model or inference profile ID.
   */
  model: string
  reasoning?: ReasoningLevel
  /** `fast` asks for the priority tier (AI Gateway's or Bedrock's) where the model has one. */
  speed?: 'fast' | 'standard'
}
