import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { SessionHints } from './session-hints.ts'

/** What the parts of one DynamoDB store instance share: its table, its clock, and its hints. */
export interface StoreContext {
  readonly client: DynamoDBClient
  readonly tableName: string
  readonly now: () => number
  /** What this instance saw of each session, to skip a read before appending. */
  readonly hints: SessionHints
}

/** An append's share of the store: how it starts a life, and how long it contends. */
export interface AppendContext extends StoreContext {
  /** The ID of each new life the store starts. */
  readonly newLife: () => string
  /** How long an append at the end keeps retrying after losing the race for an index. */
  readonly appendRetryMs: number
}
