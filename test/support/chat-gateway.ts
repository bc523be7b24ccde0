import { type GatewayDouble, gatewayDouble } from '../../shared/testing/gateway-double.ts'
import { lastUserText, type ModelCall, type Step, text } from '../../shared/testing/model-script.ts'
import { EXAMPLE_LIMITS, EXAMPLE_MODEL, exampleBranch } from './example-gateway.ts'

// The model the chat page's browser tests talk to: the example's model ID
// through the Gateway double, answering slowly enough to watch (a reply
// streams for about 1.5 s), so a test can stop it, reload during it, queue
// or steer behind it, as the offline demo model let them before.

/** How long each streamed part waits after the one before. */
const WORD_DELAY_MS = 60

/** The answer to a message the example's script does not branch on: long enough to see it grow. */
export const reply = (said: string): string =>
  `You said: "${said}". This answer comes from the AI Gateway double, a few words at a time, as a model streams its answer to the chat page.`

/** What a real model's formatted answer looks like, for the page's markdown. */
const MARKDOWN = [
  'The chat page renders **markdown** as it streams:',
  '',
  '- a list item with `inline code`',
  '- a second item',
  '',
  '```ts',
  'const answer = 42',
  '```',
].join('\n')

/** The Gateway's answer for a model ID it has no model for: what a mistyped `A2_MODEL` meets. */
export const notFound = (modelId: string): string => `Model '${modelId}' not found`

/**
 * The example's script for the chat page: `exampleBranch()`'s tools,
 * summary and hang; a message that mentions markdown gets `MARKDOWN`;
 * anything else `reply()`, one delta a word; a model other than the
 * example's is not found (404, as the Gateway answers).
 */
function chatScript(call: ModelCall): Step {
  if (call.modelId !== EXAMPLE_MODEL) {
    return { error: notFound(call.modelId), status: 404, type: 'model_not_found' }
  }
  const said = lastUserText(call)
  const asked = call.messages.at(-1)?.role === 'user'
  if (asked && /\bmarkdown\b/i.test(said)) return inWords(MARKDOWN)
  return exampleBranch(call) ?? inWords(reply(said))
}

function inWords(content: string): Step {
  return text(content, { chunks: content.split(' ').length })
}

/** A Gateway double answering as `chatScript()`, `WORD_DELAY_MS` a part, its catalog listing the example's model. */
export function chatGateway(): Promise<GatewayDouble> {
  return gatewayDouble({
    script: chatScript,
    catalog: { [EXAMPLE_MODEL]: EXAMPLE_LIMITS },
    chunkDelayMs: WORD_DELAY_MS,
  })
}
