import { type CheckOutcome, duration, fail, pass, skip } from './check-result.ts'
import { errorText } from './verify-target.ts'

/** Makes a one-token call to a Bedrock model (or inference profile) ID; throws what Bedrock answered. */
export type InvokeModel = (modelId: string) => Promise<void>

/**
 * The models check: one call of one output token to each model the agent
 * is granted (`bedrockModels`), with the caller's credentials, so a model
 * the account cannot use yet is named before a turn fails on it. A
 * third-party model's first call subscribes the account through AWS
 * Marketplace (the caller needs `aws-marketplace:Subscribe`,
 * `ViewSubscriptions` and `Unsubscribe`); Anthropic's models need the
 * first-time use form. Run by an admin, this call is that first call.
 */
export async function runModelsCheck(
  models: readonly string[],
  invoke: InvokeModel | undefined,
  now: () => number = () => performance.now(),
): Promise<CheckOutcome> {
  if (models.length === 0) return skip('the agent is granted no Bedrock model (bedrockModels)')
  if (!invoke) return skip('needs AWS credentials and the stack: give --stack')
  const answered: string[] = []
  const denied: string[] = []
  const figures: Record<string, number> = {}
  for (const model of models) {
    const started = now()
    try {
      await invoke(model)
      const ms = now() - started
      figures[model] = ms
      answered.push(`${model} (${duration(ms)})`)
    } catch (error) {
      denied.push(`${model}: ${errorText(error)}${hintFor(error)}`)
    }
  }
  figures.denied = denied.length
  if (denied.length === 0) return pass(`one-token calls answered: ${answered.join(', ')}`, figures)
  return fail(
    `denied: ${denied.join('; ')}${answered.length > 0 ? `. Answered: ${answered.join(', ')}` : ''}`,
    figures,
  )
}

/** What to do about a refusal, by what Bedrock said (see docs/deploy.md, "Bedrock access"). */
function hintFor(error: unknown): string {
  const text = `${(error as { name?: string }).name ?? ''} ${errorText(error)} ${JSON.stringify((error as { responseBody?: unknown }).responseBody ?? '')}`
  if (/marketplace/i.test(text)) {
    return ' (the account is not subscribed to this model yet: its first call subscribes it, which needs aws-marketplace:Subscribe, aws-marketplace:ViewSubscriptions and aws-marketplace:Unsubscribe; run verify once as an admin who has them, then give it up to 15 minutes)'
  }
  if (/use case|first.time use|FTU/i.test(text)) {
    return " (Anthropic's first-time use form has not been submitted for this account: an admin submits it once, in the Bedrock console's model catalog, for the account or the organization's management account)"
  }
  if (/not authorized to perform/i.test(text)) {
    return " (your credentials may not invoke it: verify calls with yours, not the function's role; the function's grant is in the template)"
  }
  if (/model identifier is invalid|on-demand throughput/i.test(text)) {
    return ' (not a model this region serves on demand: use its inference profile ID, e.g. us.<model ID>)'
  }
  if (/throttl|too many/i.test(text)) return ' (throttled: run verify again)'
  return ''
}
