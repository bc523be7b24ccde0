import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { textOf, track, until, userMessage } from '../../../support/agent-log.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'

// Two agent() servers on one table, each with its own store instance (its
// hints of where each log ends, and in which life) and its own state cache
// (issue 37, case 1). Server A serves a session's first life; B erases it and
// the user starts over, shorter; the user's next message reaches A. It used
// to land past the erase's tombstones, where no reader sees it, and was never
// answered, nor was any later message through either server.

const table = eventLogTableForSuite()
const quiet = { info() {}, warn() {}, error() {} }

function server(replies: string[]) {
  return track(
    agent({
      name: 'two-servers',
      model: scriptedModel(replies.map((reply) => text(reply))).model,
      store: dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
      logger: quiet,
    }),
  )
}

describe('two servers on one table, across an erase and a restart', () => {
  it("answers a message that reaches the server of the ended life, and every later one, in the new life's log", async () => {
    const a = server(['A one.', 'A two.', 'A three, in the new life.', 'A four.'])
    const b = server(['B one, the new life.', 'B two.'])
    const answered = async (on: typeof a, reply: string) => {
      await on.runtime.idle()
      return until(async () => {
        const { state } = await on.session('s').state()
        return state.active === null && textOf(state.messages.at(-1)) === reply && state
      }, 20_000)
    }
    await a.session('s').append(...inputs.message(userMessage('m1', 'One')))
    await answered(a, 'A one.')
    await a.session('s').append(...inputs.message(userMessage('m2', 'Two')))
    await answered(a, 'A two.')
    const firstLife = await a.runtime.log.session('s').read()
    expect(firstLife.length).toBeGreaterThan(12)

    await b.session('s').erase()
    await b.session('s').append(...inputs.message(userMessage('m3', 'Starting over')))
    await answered(b, 'B one, the new life.')

    // The next message reaches the server that served the first life.
    await a.session('s').append(...inputs.message(userMessage('m4', 'Still there?')))
    await answered(a, 'A three, in the new life.')
    // And later ones, through either server.
    await b.session('s').append(...inputs.message(userMessage('m5', 'And now?')))
    await answered(b, 'B two.')

    const log = await b.runtime.log.session('s').read()
    expect(log.map((event) => event.index)).toEqual(log.map((_, n) => n + 1))
    expect(new Set(log.map((event) => event.life)).size).toBe(1)
    expect(log[0]?.life).not.toBe(firstLife[0]?.life)
    for (const on of [a, b]) {
      const { state } = await on.session('s').state()
      expect(state.messages.filter((message) => message.role === 'user').map((m) => m.id)).toEqual([
        'm3',
        'm4',
        'm5',
      ])
    }
  }, 90_000)
})
