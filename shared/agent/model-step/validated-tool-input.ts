import { safeValidateTypes } from '@ai-sdk/provider-utils'
import { asSchema, type ToolSet, type UIMessageChunk } from 'ai'

/**
 * What the default generator (`streamText`) does to a tool call's input,
 * for a custom `harness.generate`: the input is checked against the tool's
 * `inputSchema`. A refused input becomes `tool-input-error`, so the call gets
 * an error result and never reaches an approval request or `execute`; an
 * accepted one carries the schema's output, as `execute` expects. Calls of
 * provider tools and of tools the agent does not have pass as they are (the
 * tools lane reports an unknown tool).
 */
export async function validatedToolInput(
  chunk: UIMessageChunk,
  tools: ToolSet,
): Promise<UIMessageChunk> {
  if (chunk.type !== 'tool-input-available' || chunk.providerExecuted === true) return chunk
  const definition = Object.hasOwn(tools, chunk.toolName) ? tools[chunk.toolName] : undefined
  if (definition?.inputSchema === undefined) return chunk
  const checked = await safeValidateTypes({
    value: chunk.input,
    schema: asSchema(definition.inputSchema),
  })
  if (checked.success) return { ...chunk, input: checked.value }
  return {
    type: 'tool-input-error',
    toolCallId: chunk.toolCallId,
    toolName: chunk.toolName,
    input: chunk.input,
    // The wording of the AI SDK's InvalidToolInputError.
    errorText: `Invalid input for tool ${chunk.toolName}: ${checked.error.message}`,
    ...(chunk.dynamic === undefined ? {} : { dynamic: chunk.dynamic }),
    ...(chunk.providerMetadata === undefined ? {} : { providerMetadata: chunk.providerMetadata }),
    ...(chunk.title === undefined ? {} : { title: chunk.title }),
  }
}
