/**
 * How a model ID string names a model on Amazon Bedrock: `bedrock:` and the
 * Bedrock model ID (`bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0`) or
 * cross-region inference profile ID (`bedrock:us.anthropic...`,
 * `bedrock:global.anthropic...`). AI Gateway IDs are `provider/model` and
 * never start with it, so the two cannot be confused; the prefix is the AI
 * SDK provider registry's `provider:model` form. No SDK import: the CDK
 * construct reads it at synth time.
 */
export const BEDROCK_PREFIX = 'bedrock:'

/** The Bedrock model or inference profile ID a `bedrock:` string names, or `undefined` for any other string. */
export function bedrockModelId(id: string): string | undefined {
  if (!id.startsWith(BEDROCK_PREFIX)) return undefined
  const modelId = id.slice(BEDROCK_PREFIX.length).trim()
  if (modelId === '' || /\s/.test(modelId)) {
    throw new TypeError(
      `"${id}" is not a Bedrock model ID: write bedrock: and the model or inference profile ID, e.g. bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0`,
    )
  }
  return modelId
}
