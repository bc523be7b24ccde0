import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { type BedrockDouble, bedrockDouble } from '../../../shared/testing/bedrock-double.ts'
import { text } from '../../../shared/testing/model-script.ts'
import { eventsOf, textOf, track, userMessage } from '../../support/agent-log.ts'

const SONNET_US = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'
const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0'
const SUMMARY_REQUEST = 'Summarize the conversation so far'

let bedrock: BedrockDouble
beforeEach(async () => {
  bedrock = await bedrockDouble({
    script: (call) => {
      const last = call.body.messages.at(-1)?.content.at(-1)?.text ?? ''
      return last.startsWith(SUMMARY_REQUEST)
        ? text('SUMMARY')
        : text(`Bedrock says: ${'the answer is forty-two. '.repeat(8)}`, { chunks: 2 })
    },
  })
  // What a Lambda function's environment holds: its role's credentials and
  // region. The endpoint variable points the provider at the double.
  vi.stubEnv('AWS_REGION', 'us-east-1')
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAROLECREDENTIALS')
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'role-secret')
  vi.stubEnv('AWS_SESSION_TOKEN', 'role-session-token')
  vi.stubEnv('AWS_BEARER_TOKEN_BEDROCK', undefined)
  vi.stubEnv('AWS_ENDPOINT_URL_BEDROCK_RUNTIME', bedrock.url)
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await bedrock.close()
})

async function turn(a: ReturnType<typeof agent>, id: string, text: string): Promise<void> {
  await a.session('s').append(...inputs.message(userMessage(id, text)))
  await a.runtime.idle()
}

describe('an agent on Amazon Bedrock', () => {
  it('answers through Bedrock ConverseStream with a `bedrock:` model ID, signed with the environment role credentials (no key)', async () => {
    const a = track(
      agent({ name: 'bedrock', model: `bedrock:${SONNET_US}`, instructions: 'Be brief.' }),
    )
    await turn(a, 'u1', 'What is the answer?')
    const { state } = await a.session('s').state()
    expect(textOf(state.messages[1])).toMatch(/^Bedrock says: the answer is forty-two/)
    expect(bedrock.calls).toHaveLength(1)
    const [request] = bedrock.calls
    expect(request?.modelId).toBe(SONNET_US)
    expect(request?.authorization).toContain('Credential=ASIAROLECREDENTIALS/')
    expect(request?.authorization).toContain('/us-east-1/bedrock/aws4_request')
    expect(request?.body.system).toEqual([{ text: 'Be brief.' }])
    expect(request?.body.messages).toEqual([
      { role: 'user', content: [{ text: 'What is the answer?' }] },
    ])
    const completed = (await eventsOf(a, 's')).find(
      (event) => event.type === 'ai.generation.completed',
    )
    expect(completed?.payload).toMatchObject({
      outcome: 'success',
      modelId: `amazon-bedrock/${SONNET_US}`,
      usage: { inputTokens: expect.any(Number), outputTokens: 5 },
    })
  })

  it('answers through an @ai-sdk/amazon-bedrock model object in agent({ model })', async () => {
    const model = createAmazonBedrock({ region: 'eu-west-1', baseURL: bedrock.url })(SONNET)
    const a = track(agent({ name: 'bedrock-object', model }))
    await turn(a, 'u1', 'Hello')
    const { state } = await a.session('s').state()
    expect(textOf(state.messages[1])).toMatch(/^Bedrock says:/)
    expect(bedrock.calls[0]?.modelId).toBe(SONNET)
    expect(bedrock.calls[0]?.authorization).toContain('/eu-west-1/bedrock/aws4_request')
  })

  it('is not in the AI Gateway catalog: no metadata lookup, and without thresholdTokens the session does not compact', async () => {
    let catalogReads = 0
    const a = track(
      agent({
        name: 'bedrock-long',
        model: `bedrock:${SONNET_US}`,
        modelCatalog: {
          fetch: async () => {
            catalogReads++
            return Response.json({ data: [] })
          },
        },
      }),
    )
    for (let n = 1; n <= 6; n++) await turn(a, `u${n}`, `question ${n}: ${'filler '.repeat(60)}`)
    const types = (await eventsOf(a, 's')).map((event) => event.type)
    expect(types).not.toContain('ai.model.metadata.requested')
    expect(types).not.toContain('ai.compaction.started')
    expect(catalogReads).toBe(0)
    expect(bedrock.calls).toHaveLength(6)
    expect(bedrock.calls.at(-1)?.body.messages).toHaveLength(11)
  })

  it('compacts with compaction.thresholdTokens, the summary request going to the same Bedrock model', async () => {
    const a = track(
      agent({
        name: 'bedrock-compacting',
        model: `bedrock:${SONNET_US}`,
        harness: { type: 'ai-sdk', compaction: { thresholdTokens: 250 } },
      }),
    )
    for (let n = 1; n <= 4; n++) await turn(a, `u${n}`, `question ${n}: ${'filler '.repeat(40)}`)
    const { state } = await a.session('s').state()
    expect(state.compacted?.summary).toBe('SUMMARY')
    const summaryRequests = bedrock.calls.filter((request) =>
      request.body.messages.at(-1)?.content.at(-1)?.text?.startsWith(SUMMARY_REQUEST),
    )
    expect(summaryRequests.length).toBeGreaterThan(0)
    expect(summaryRequests.every((request) => request.modelId === SONNET_US)).toBe(true)
    // The request after the summary carries it in place of what it covers.
    expect(JSON.stringify(bedrock.calls.at(-1)?.body.messages)).toContain(
      'Summary of the earlier conversation',
    )
  })
})
