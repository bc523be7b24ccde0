import { gzipSync } from 'node:zlib'
import type { DynamoDBRecord } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { wakeUpsFor } from '../../../shared/agent/wiring/wake-ups-for.ts'
import {
  matchesFilterPattern,
  ROUTER_FILTER_PATTERN,
  ROUTER_FILTER_PATTERNS,
} from '../../../shared/aws/stream-filter.ts'
import { routeStreamRecords } from '../../../shared/aws/stream-router.ts'
import type { WakeUp } from '../../../shared/runtime/wake-up.ts'

let sequence = 100
/** The record of an event an erase overwrote with its tombstone. */
function erased(sessionId: string, index: number): DynamoDBRecord {
  return {
    eventID: `r${sequence}`,
    eventName: 'MODIFY',
    dynamodb: {
      SequenceNumber: String(sequence++),
      NewImage: {
        pk: { S: `S#${sessionId}` },
        sk: { S: `E#${String(index).padStart(12, '0')}` },
        erased: { N: '1' },
        expiresAt: { N: '2' },
      },
    },
  }
}

function eventRecord(
  sessionId: string,
  index: number,
  type: string,
  payload: unknown = {},
  gzip = false,
): DynamoDBRecord {
  return {
    eventID: `r${sequence}`,
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: String(sequence++),
      NewImage: {
        pk: { S: `S#${sessionId}` },
        sk: { S: `E#${String(index).padStart(12, '0')}` },
        sid: { S: sessionId },
        l: { S: 'L1' },
        i: { N: String(index) },
        id: { S: `e-${sessionId}-${index}` },
        t: { S: type },
        ts: { N: '1' },
        ...(gzip
          ? { pz: { B: gzipSync(JSON.stringify(payload)).toString('base64') } }
          : { p: { S: JSON.stringify(payload) } }),
      },
    },
  }
}

/**
 * A REMOVE record as the stream delivers it (keys only, the table's view
 * being NEW_IMAGE); a TTL delete names the DynamoDB service as its user.
 */
function removeRecord(pk: string, sk: string, by: 'ttl' | 'user'): DynamoDBRecord {
  return {
    eventID: `r${sequence}`,
    eventName: 'REMOVE',
    ...(by === 'ttl'
      ? { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } }
      : {}),
    dynamodb: { SequenceNumber: String(sequence++), Keys: { pk: { S: pk }, sk: { S: sk } } },
  }
}

const route = (
  records: DynamoDBRecord[],
  send: (wakeUps: readonly WakeUp[]) => Promise<void>,
  eraseExpired: (sessionId: string) => Promise<void> = async () => {},
) =>
  routeStreamRecords(records, {
    wakeUpsFor: (events) => wakeUpsFor(events, { handledTypes: new Set() }),
    send,
    eraseExpired,
    logger: { warn: () => {}, error: () => {} },
  })

describe('the stream router', () => {
  it("routes a session's events of a batch together: a command whose decision is in the batch wakes no admission, one whose decision is not does", async () => {
    const sent: WakeUp[] = []
    const send = async (wakeUps: readonly WakeUp[]) => void sent.push(...wakeUps)
    // The POST's append: the command (its event ID e-s1-1), its decision, the model step.
    await route(
      [
        eventRecord('s1', 1, 'ai.control.requested', { action: 'message' }),
        eventRecord('s1', 2, 'ai.control.decided', { commandId: 'e-s1-1', action: 'message' }),
        eventRecord('s1', 3, 'ai.generation.requested'),
      ],
      send,
    )
    expect(sent).toEqual([{ sessionId: 's1', lane: 'generation', at: { life: 'L1', index: 3 } }])
    sent.length = 0
    // A batch that has the command without its decision (split by the stream).
    await route([eventRecord('s2', 1, 'ai.control.requested', { action: 'message' })], send)
    expect(sent).toEqual([{ sessionId: 's2', lane: 'admission', at: { life: 'L1', index: 1 } }])
  })

  it('wakes the lanes the new events concern, once per session, each with the index of the latest event that wakes it, all sessions in one send', async () => {
    const sent: WakeUp[][] = []
    const result = await route(
      [
        eventRecord('s1', 1, 'ai.control.requested'),
        eventRecord('s1', 2, 'ai.generation.requested', {}, true),
        eventRecord('s2', 5, 'ai.generation.progress'),
        eventRecord('s3', 9, 'ai.tool.called'),
      ],
      async (wakeUps) => {
        sent.push([...wakeUps])
      },
    )
    expect(result.batchItemFailures).toEqual([])
    expect(sent).toHaveLength(1)
    expect(
      sent
        .flat()
        .sort((a, b) => `${a.sessionId}${a.lane}`.localeCompare(`${b.sessionId}${b.lane}`)),
    ).toEqual([
      // The request at 2 wakes generation only: admission's news ends at 1,
      // where the fast path's copy (sent once 1 was stored) has the same ID.
      { sessionId: 's1', lane: 'admission', at: { life: 'L1', index: 1 } },
      { sessionId: 's1', lane: 'generation', at: { life: 'L1', index: 2 } },
      // A tool call wakes its own keyed run, not admission.
      { sessionId: 's3', lane: 'tools', at: { life: 'L1', index: 9 } },
    ])
  })

  it("wakes the lanes for an event written over an erase's tombstone (a MODIFY: its session started over)", async () => {
    const sent: WakeUp[] = []
    const overTombstone = {
      ...eventRecord('s1', 1, 'ai.control.requested'),
      eventName: 'MODIFY' as const,
    }
    await route([overTombstone], async (wakeUps) => {
      sent.push(...wakeUps)
    })
    expect(sent).toEqual([{ sessionId: 's1', lane: 'admission', at: { life: 'L1', index: 1 } }])
  })

  it('ignores heads, cursors, claims, ID guards, tombstones and removals', async () => {
    const sent: WakeUp[] = []
    const head: DynamoDBRecord = {
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '1', NewImage: { pk: { S: 'S#s1' }, sk: { S: '#HEAD' } } },
    }
    const guard: DynamoDBRecord = {
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '2', NewImage: { pk: { S: 'ID#e1' }, sk: { S: '#ID' } } },
    }
    const removed = {
      ...eventRecord('s1', 1, 'ai.control.requested'),
      eventName: 'REMOVE' as const,
    }
    const result = await route([head, guard, removed, erased('s1', 1)], async (wakeUps) => {
      sent.push(...wakeUps)
    })
    expect(sent).toEqual([])
    expect(result.batchItemFailures).toEqual([])
  })

  it("routes on the item's keys and type, reading a payload only when routing needs it; an unreadable one is logged and skipped, since a retry could not read it either", async () => {
    const errors: string[] = []
    const brokenCommit = eventRecord('s1', 1, 'ai.control.committed')
    const brokenRequest = eventRecord('s3', 1, 'ai.control.requested')
    for (const broken of [brokenCommit, brokenRequest])
      (broken.dynamodb?.NewImage as Record<string, unknown>).p = { S: '{not json' }
    const sent: WakeUp[] = []
    const result = await routeStreamRecords(
      [brokenCommit, eventRecord('s2', 1, 'ai.control.requested'), brokenRequest],
      {
        wakeUpsFor: (events) => wakeUpsFor(events, { handledTypes: new Set() }),
        send: async (wakeUps) => {
          sent.push(...wakeUps)
        },
        eraseExpired: async () => {},
        logger: { warn: () => {}, error: (message) => errors.push(message) },
      },
    )
    expect(result.batchItemFailures).toEqual([])
    // A committed control's payload says whether it wakes tools; a request's routing needs none.
    expect(sent.map((wakeUp) => wakeUp.sessionId).sort()).toEqual(['s2', 's3'])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('skipped unreadable event record')
  })

  it('passes the event source filter only for new event items that may wake a lane', () => {
    const progress = eventRecord('s1', 2, 'ai.generation.progress')
    const lambdaShaped = (record: DynamoDBRecord) => ({
      ...record,
      dynamodb: { ...record.dynamodb, Keys: { sk: record.dynamodb?.NewImage?.sk } },
    })
    const pass = (record: DynamoDBRecord) =>
      matchesFilterPattern(lambdaShaped(record), ROUTER_FILTER_PATTERN)
    expect(pass(eventRecord('s1', 1, 'ai.control.requested'))).toBe(true)
    expect(pass(eventRecord('s1', 3, 'ai.generation.completed'))).toBe(true)
    expect(pass(progress)).toBe(false)
    // An event written over an erase's tombstone (its session started over) is news;
    // an event erased into a tombstone is not.
    expect(pass({ ...eventRecord('s1', 1, 'ai.control.requested'), eventName: 'MODIFY' })).toBe(
      true,
    )
    expect(pass(erased('s1', 1))).toBe(false)
    const guard = {
      eventName: 'INSERT' as const,
      dynamodb: { NewImage: { pk: { S: 'ID#e1' }, sk: { S: '#ID' } } },
    }
    expect(pass(guard)).toBe(false)
  })

  it('reports the first record of a session whose wake-ups could not be sent, so Lambda retries from there', async () => {
    const first = eventRecord('ok', 1, 'ai.control.requested')
    const failing = [
      eventRecord('bad', 3, 'ai.control.requested'),
      eventRecord('bad', 4, 'ai.control.requested'),
    ]
    const sent: string[][] = []
    const result = await route([first, ...failing], async (wakeUps) => {
      sent.push(wakeUps.map((wakeUp) => wakeUp.sessionId))
      if (wakeUps.some((wakeUp) => wakeUp.sessionId === 'bad')) throw new Error('SQS is down')
    })
    expect(result.batchItemFailures).toEqual([
      { itemIdentifier: failing[0]?.dynamodb?.SequenceNumber },
    ])
    // Together first; once that failed, each session on its own.
    expect(sent).toEqual([['ok', 'bad'], ['ok'], ['bad']])
  })

  it("erases the rest of a session whose head DynamoDB's TTL deleted, once per session in a batch, and nothing on a wake-up", async () => {
    const erased: string[] = []
    const sent: WakeUp[] = []
    const result = await route(
      [
        removeRecord('S#old', '#HEAD', 'ttl'),
        removeRecord('S#old', '#HEAD', 'ttl'), // delivered again
        eventRecord('s2', 1, 'ai.control.requested'),
      ],
      async (wakeUps) => {
        sent.push(...wakeUps)
      },
      async (sessionId) => {
        erased.push(sessionId)
      },
    )
    expect(result.batchItemFailures).toEqual([])
    expect(erased).toEqual(['old'])
    expect(sent.map((wakeUp) => wakeUp.sessionId)).toEqual(['s2'])
  })

  it("ignores a user's delete of a head (an erase), and TTL deletes of other items (a claim)", async () => {
    const erased: string[] = []
    const result = await route(
      [
        removeRecord('S#s1', '#HEAD', 'user'),
        removeRecord('S#s1', 'K#gen:g1', 'ttl'),
        { ...removeRecord('S#s1', '#HEAD', 'ttl'), eventName: 'MODIFY' },
      ],
      async () => {},
      async (sessionId) => {
        erased.push(sessionId)
      },
    )
    expect(result.batchItemFailures).toEqual([])
    expect(erased).toEqual([])
  })

  it('reports a TTL delete whose session could not be erased, so Lambda delivers it again', async () => {
    const expired = removeRecord('S#old', '#HEAD', 'ttl')
    const result = await route(
      [eventRecord('ok', 1, 'ai.control.requested'), expired],
      async () => {},
      async () => {
        throw new Error('throttled')
      },
    )
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: expired.dynamodb?.SequenceNumber }])
  })

  it("passes the event source filters for TTL deletes of heads, not for a user's delete or other expired items", () => {
    const pass = (record: DynamoDBRecord) =>
      ROUTER_FILTER_PATTERNS.some((pattern) => matchesFilterPattern(record, pattern))
    expect(pass(removeRecord('S#s1', '#HEAD', 'ttl'))).toBe(true)
    expect(pass(removeRecord('S#s1', '#HEAD', 'user'))).toBe(false)
    expect(pass(removeRecord('S#s1', 'K#gen:g1', 'ttl'))).toBe(false)
    expect(pass(removeRecord('S#s1', 'E#000000000001', 'ttl'))).toBe(false)
  })
})
