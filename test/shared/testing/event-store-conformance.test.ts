import { memoryEventStore } from 'a2-aws'
import {
  type ConformanceTestApi,
  describeEventStoreConformance,
  type EventStoreFeature,
} from 'a2-aws/test'
import { describe, expect, it } from 'vitest'

// The suite's selection of features, read off the tests it registers (none
// of them run here: the memory and DynamoDB store tests run them all).

interface Registered {
  /** The feature blocks, by title, with the names of their tests. */
  blocks: Map<string, string[]>
}

function register(features?: readonly EventStoreFeature[]): Registered {
  const blocks = new Map<string, string[]>()
  let block: string[] | undefined
  let depth = 0
  const api = {
    describe: (title: string, body: () => void) => {
      depth++
      if (depth === 2) {
        block = []
        blocks.set(title, block)
      }
      body()
      depth--
    },
    it: (title: string) => block?.push(title),
    expect,
  } as unknown as ConformanceTestApi
  const harness = () => ({ store: memoryEventStore(), corruptSnapshot: async () => {} })
  describeEventStoreConformance('a store', harness, api, features ? { features } : {})
  return { blocks }
}

const FEATURE_BLOCKS: Record<EventStoreFeature, string> = {
  append: 'append',
  eventIds: 'event IDs',
  size: 'size',
  readAndTail: 'read and tail',
  snapshots: 'state and snapshots',
  cursors: 'handler cursors',
  claims: 'claims and fencing',
  erase: 'erase',
  lives: 'lives',
  eventLog: 'the log over this store',
}

describe('describeEventStoreConformance: one suite of per-feature suites', () => {
  it('runs every feature when none are named, each as its own block of tests', () => {
    const { blocks } = register()
    expect([...blocks.keys()]).toEqual(Object.values(FEATURE_BLOCKS))
    for (const tests of blocks.values()) expect(tests.length).toBeGreaterThan(0)
  })

  it('runs only the named features, all of their tests, in the suite order', () => {
    const all = register().blocks
    const { blocks } = register(['claims', 'append'])
    expect([...blocks.keys()]).toEqual(['append', 'claims and fencing'])
    expect(blocks.get('append')).toEqual(all.get('append'))
    expect(blocks.get('claims and fencing')).toEqual(all.get('claims and fencing'))
    for (const feature of Object.keys(FEATURE_BLOCKS) as EventStoreFeature[]) {
      expect([...register([feature]).blocks.keys()]).toEqual([FEATURE_BLOCKS[feature]])
    }
  })

  it('refuses a feature it does not have, and an empty list, naming the features it has', () => {
    expect(() => register(['append', 'transactions' as EventStoreFeature])).toThrow(
      /no feature transactions \(the features: append, eventIds, size,/,
    )
    expect(() => register([])).toThrow(/no features named/)
  })
})
