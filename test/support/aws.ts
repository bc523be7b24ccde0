import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { afterAll, beforeAll, inject } from 'vitest'
import { resetMoto } from '../../functions/local/runner/moto-server.ts'
import { createEventLogTable } from '../../shared/stores/dynamodb/create-table.ts'

/**
 * This file's endpoint. On moto each vitest worker has its own server
 * (VITEST_POOL_ID runs from 1 to the worker count), so files running side
 * by side never reset each other's tables.
 */
export function awsEndpoint(): string {
  const endpoints = inject('awsEndpoints')
  const worker = Number(process.env.VITEST_POOL_ID ?? '1')
  return endpoints[(worker - 1) % endpoints.length] as string
}

/** Resets this file's moto server (never LocalStack or AWS) before a suite. */
export async function resetMotoForSuite(): Promise<void> {
  if (inject('awsEndpointKind') === 'moto') await resetMoto(awsEndpoint())
}

/** SDK settings for the test endpoint; `A2_TEST_ENDPOINT=aws` means real AWS as configured. */
export function awsClientConfig() {
  const endpoint = awsEndpoint()
  if (endpoint === 'aws') return {}
  return {
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'test',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'test',
    },
  }
}

/**
 * Gives a suite a fresh event log table: on moto the server is reset first;
 * on LocalStack or AWS the table gets a unique name and is deleted afterwards.
 */
export function eventLogTableForSuite(): { client: () => DynamoDBClient; tableName: () => string } {
  let client: DynamoDBClient | undefined
  const tableName = `a2-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  beforeAll(async () => {
    await resetMotoForSuite()
    client = new DynamoDBClient(awsClientConfig())
    await createEventLogTable(client, tableName)
  })
  afterAll(async () => {
    if (inject('awsEndpointKind') === 'external') {
      await client?.send(new DeleteTableCommand({ TableName: tableName }))
    }
    client?.destroy()
  })
  return {
    client: () => {
      if (!client)
        throw new Error('eventLogTableForSuite(): the client exists only inside tests and hooks')
      return client
    },
    tableName: () => tableName,
  }
}
