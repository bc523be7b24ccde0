import type { ScanCommand } from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import { sessionIdsOf } from '../../../../shared/stores/dynamodb/session-scan.ts'

/** A table's Scan, page by page, as DynamoDB answers one filtered to head items. */
function scanned(pages: string[][]) {
  const inputs: ScanCommand['input'][] = []
  const client = {
    send: async (command: ScanCommand) => {
      inputs.push(command.input)
      const at = Number(command.input.ExclusiveStartKey?.pk?.S ?? 0)
      return {
        Items: (pages[at] ?? []).map((pk) => ({ pk: { S: pk } })),
        ...(at + 1 < pages.length ? { LastEvaluatedKey: { pk: { S: String(at + 1) } } } : {}),
      }
    },
  }
  return { client: client as never, inputs }
}

describe('sessionIdsOf: a sample of a table’s sessions', () => {
  it('scans the session heads page by page and answers their session IDs', async () => {
    const { client, inputs } = scanned([['S#a', 'S#b'], [], ['S#c']])
    expect(await sessionIdsOf(client, 'a2-events', { limit: 10 })).toEqual(['a', 'b', 'c'])
    expect(inputs).toHaveLength(3)
    expect(inputs[0]).toMatchObject({
      TableName: 'a2-events',
      FilterExpression: '#sk = :head',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':head': { S: '#HEAD' } },
    })
    expect(inputs[0]).not.toHaveProperty('ExclusiveStartKey')
  })

  it('stops reading once it has the sample', async () => {
    const { client, inputs } = scanned([['S#a', 'S#b', 'S#c'], ['S#d']])
    expect(await sessionIdsOf(client, 't', { limit: 2 })).toEqual(['a', 'b'])
    expect(inputs).toHaveLength(1)
  })
})
