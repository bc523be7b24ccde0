import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { StoredEvent } from '../../../shared/log/event.ts'
import type { Claim } from '../../../shared/log/event-store.ts'
import { dynamoDBEventStore } from '../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { awsSetupProblem } from '../aws-setup.ts'
import { InspectError } from './inspect-error.ts'

/** Where inspect reads a session from: read-only, events and the claims it asks for. */
export interface SessionSource {
  /** What the report names as the source. */
  readonly name: string
  events(sessionId: string): Promise<StoredEvent[]>
  claims(sessionId: string, keys: readonly string[]): Promise<Record<string, Claim | undefined>>
}

/**
 * An agent's HTTP endpoint: `GET ?sessionId=S&events` and `?claims=`, which
 * the endpoint answers behind its read authorization (send its header).
 */
export function httpSource(
  url: string,
  headers: readonly [string, string][] = [],
  fetchFn: typeof fetch = fetch,
): SessionSource {
  async function getJson(query: Record<string, string>): Promise<unknown> {
    const target = new URL(url)
    for (const [name, value] of Object.entries(query)) target.searchParams.set(name, value)
    let response: Response
    try {
      response = await fetchFn(target, { headers: [...headers] })
    } catch (error) {
      throw new InspectError(
        'SOURCE_FAILED',
        `Cannot reach ${target.origin}: ${(error as Error).message}`,
        {
          cause: error,
        },
      )
    }
    const body = (await response.json().catch(() => undefined)) as
      | { error?: { code?: string; message?: string } }
      | undefined
    if (!response.ok) {
      const detail = body?.error ? `${body.error.code}: ${body.error.message}` : response.statusText
      throw new InspectError(
        'SOURCE_FAILED',
        `${target.pathname} answered ${response.status} (${detail})`,
      )
    }
    if (body === undefined)
      throw new InspectError(
        'SOURCE_FAILED',
        `${target.pathname} did not answer JSON: is --url the agent's endpoint?`,
      )
    return body
  }
  return {
    name: url,
    async events(sessionId) {
      const body = (await getJson({ sessionId, events: '' })) as { events?: StoredEvent[] }
      if (!Array.isArray(body.events))
        throw new InspectError(
          'SOURCE_FAILED',
          `${url} answered no events: is it an a2-aws agent endpoint?`,
        )
      return body.events
    },
    async claims(sessionId, keys) {
      if (keys.length === 0) return {}
      const body = (await getJson({ sessionId, claims: keys.join(',') })) as {
        claims?: Record<string, Claim | null>
      }
      return Object.fromEntries(
        Object.entries(body.claims ?? {}).map(([key, claim]) => [key, claim ?? undefined]),
      )
    },
  }
}

/**
 * An agent's DynamoDB table, read with the caller's credentials: the store's
 * own reads (Query for events, GetItem for claims), nothing written.
 */
export function tableSource(client: DynamoDBClient, tableName: string): SessionSource {
  const store = dynamoDBEventStore({ client, tableName })
  const wrap = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read()
    } catch (error) {
      throw new InspectError(
        'SOURCE_FAILED',
        `Cannot read table ${tableName}: ${awsSetupProblem(error) ?? (error as Error).message}`,
        {
          cause: error,
        },
      )
    }
  }
  return {
    name: `table ${tableName}`,
    events: (sessionId) => wrap(() => store.read(sessionId)),
    claims: (sessionId, keys) =>
      wrap(async () =>
        Object.fromEntries(
          await Promise.all(
            keys.map(async (key) => [key, await store.readClaim(sessionId, key)] as const),
          ),
        ),
      ),
  }
}
