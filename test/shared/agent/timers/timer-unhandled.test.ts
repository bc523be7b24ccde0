import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'
import { track, until } from '../../../support/agent-log.ts'

// A timer set for a handler that a deploy then removed (issue 38, rule 3):
// its event is appended and nothing runs for it, so the log says so.

function reminders(handlers: Record<string, () => void>) {
  const info: string[] = []
  const a = track(
    agent({
      name: 'reminders',
      version: 'v2',
      model: scriptedModel([]).model,
      handlers,
      logger: { info: (line: string) => info.push(line), warn() {}, error() {} },
    }),
  )
  return { a, info }
}

describe('a timer whose handler is gone', () => {
  it('appends its event and says that no handler of this version handles it', async () => {
    const { a, info } = reminders({ 'invoice.sent': () => {} })
    await a.session('s').schedule('remind', { delay: 10 }, { type: 'reminder.due', payload: {} })
    await until(async () => (await a.runtime.log.session('s').read()).length === 1, 5_000)
    await until(() => info.length > 0, 5_000)
    expect(info).toEqual([
      'a2: timer "remind" of session s appended a "reminder.due" event, which no handler of version v2 handles: it is in the log for the reducer, and nothing runs for it',
    ])
  })

  it('says nothing when a handler handles it', async () => {
    const handled: string[] = []
    const { a, info } = reminders({ 'reminder.due': () => void handled.push('ran') })
    await a.session('s').schedule('remind', { delay: 10 }, { type: 'reminder.due', payload: {} })
    await until(() => handled.length === 1, 5_000)
    expect(info).toEqual([])
  })
})
