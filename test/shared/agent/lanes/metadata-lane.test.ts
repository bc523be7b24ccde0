import { describe, expect, it } from 'vitest'
import { laneSpec } from '../../../../shared/testing/index.ts'

// The model metadata lane as given/when/then cases: a model whose metadata
// a step requested, and what the lane records of the catalog's answer.

/** A spec whose catalog answers `status` with one model, counting its requests. */
function withCatalog(status = 200) {
  const requests: string[] = []
  const spec = laneSpec({
    agent: {
      modelCatalog: {
        url: 'https://catalog.test/models',
        fetch: async (url) => {
          requests.push(String(url))
          return status === 200
            ? Response.json({
                data: [{ id: 'test/model-a', context_window: 128_000, max_tokens: 8_192 }],
              })
            : new Response('down', { status })
        },
      },
    },
  })
  return { spec, requests }
}

const requested = (modelId: string) =>
  ({
    id: `metadata-requested:${modelId}`,
    type: 'ai.model.metadata.requested',
    payload: { modelId },
  }) as const

describe('the metadata lane', () => {
  it("records a requested model's limits from the catalog", async () => {
    const { spec, requests } = withCatalog()
    await spec
      .given([requested('test/model-a')])
      .when({ lane: 'metadata', key: 'test/model-a' })
      .thenAppends([
        {
          type: 'ai.model.metadata.resolved',
          payload: {
            modelId: 'test/model-a',
            status: 'resolved',
            contextWindow: 128_000,
            maxOutputTokens: 8_192,
          },
        },
      ])
    expect(requests).toEqual(['https://catalog.test/models'])
  })

  it('records a model the catalog does not list as unavailable', async () => {
    const { spec } = withCatalog()
    await spec
      .given([requested('test/model-b')])
      .when({ lane: 'metadata', key: 'test/model-b' })
      .thenAppends([
        {
          type: 'ai.model.metadata.resolved',
          payload: { modelId: 'test/model-b', status: 'unavailable' },
        },
      ])
  })

  it('fails the run when the catalog answers with an error, for the lookup to be retried', async () => {
    const { spec } = withCatalog(503)
    await spec
      .given([requested('test/model-a')])
      .when({ lane: 'metadata', key: 'test/model-a' })
      .thenThrows(/answered 503/)
  })

  it('looks up no model already resolved, nor one the wake-up is not about', async () => {
    const { spec, requests } = withCatalog()
    await spec
      .given([
        requested('test/model-a'),
        {
          id: 'metadata-resolved:test/model-a',
          type: 'ai.model.metadata.resolved',
          payload: { modelId: 'test/model-a', status: 'resolved', contextWindow: 128_000 },
        },
        requested('test/model-b'),
      ])
      .when({ lane: 'metadata', key: 'test/model-a' })
      .thenNothing()
    expect(requests).toEqual([])
  })
})
