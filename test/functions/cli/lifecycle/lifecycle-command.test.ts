import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lifecycleCommand } from '../../../../functions/cli/lifecycle/lifecycle-command.ts'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import {
  type EventStore,
  eventLog,
  memoryEventStore,
  type StoredEvent,
} from '../../../../shared/index.ts'
import {
  exportSession,
  importSession,
  parseSessionExport,
} from '../../../../shared/log/session-export.ts'
import { sessionReducer } from '../../../../shared/model/state/session-state.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { track, until, userMessage } from '../../../support/agent-log.ts'

function cli(
  store: EventStore,
  stdin = '',
  cancelTimers?: (target: { group: string }) => (sessionId: string) => Promise<number>,
) {
  const out: string[] = []
  const err: string[] = []
  const run = (command: 'erase' | 'export' | 'import', ...argv: string[]) =>
    lifecycleCommand(command, argv, {
      stdout: (text) => void out.push(text),
      stderr: (line) => void err.push(line),
      store: () => store,
      stdin: async () => stdin,
      ...(cancelTimers ? { cancelTimers } : {}),
    })
  return { run, out, err }
}

async function answered(store: EventStore, sessionId: string): Promise<void> {
  const a = track(agent({ name: 'cli', model: scriptedModel([text('Done.')]).model, store }))
  await a.session(sessionId).append(...inputs.message(userMessage('m1', 'Hi')))
  await a.runtime.idle()
}

describe('a2-aws erase | export | import', () => {
  it('erase prints a receipt per item kind, and says so when there is nothing left', async () => {
    const store = memoryEventStore()
    await answered(store, 's1')
    const events = await store.head('s1')
    const { run, out } = cli(store)
    expect(await run('erase', 's1', '--table', 'a2-events')).toBe(0)
    expect(out.join('')).toContain(`erased session s1 from a2-events`)
    expect(out.join('')).toMatch(new RegExp(`\\n +events +${events}\\n +heads +1\\n`))
    expect(await store.head('s1')).toBe(0)
    out.length = 0
    expect(await run('erase', 's1', '--table', 'a2-events', '--json')).toBe(0)
    expect(JSON.parse(out.join(''))).toEqual({
      sessionId: 's1',
      events: 0,
      heads: 0,
      snapshots: 0,
      cursors: 0,
      claims: 0,
      idGuards: 0,
    })
  })

  it("erase --schedule-group cancels the session's timers in that group before its items go, and counts them", async () => {
    const store = memoryEventStore()
    await answered(store, 's1')
    const cancelled: { group: string; sessionId: string; headThen: number }[] = []
    const { run, out } = cli(store, '', ({ group }) => async (sessionId) => {
      cancelled.push({ group, sessionId, headThen: await store.head(sessionId) })
      return 2
    })
    expect(await run('erase', 's1', '--table', 'a2-events', '--schedule-group', 'g1')).toBe(0)
    expect(cancelled).toEqual([{ group: 'g1', sessionId: 's1', headThen: expect.any(Number) }])
    expect(cancelled[0]?.headThen).toBeGreaterThan(0)
    expect(out.join('')).toMatch(/\n +timers +2\n$/)
    out.length = 0
    expect(await run('erase', 's1', '--table', 'a2-events', '--json')).toBe(0)
    expect(JSON.parse(out.join(''))).not.toHaveProperty('timers')
    expect(cancelled).toHaveLength(1)
  })

  it('erase refuses an active session (exit 1, nothing erased) unless --force', async () => {
    const store = memoryEventStore()
    const script = scriptedModel([{ hang: true, parts: text('Wait', { chunks: 2 }).slice(0, 3) }])
    const a = track(agent({ name: 'cli', model: script.model, store }))
    await a.session('s1').append(...inputs.message(userMessage('m1', 'Hi')))
    await until(async () => (await a.session('s1').state()).state.active?.phase === 'generating')
    const { run, err } = cli(store)
    expect(await run('erase', 's1', '--table', 't')).toBe(1)
    expect(err.join('')).toMatch(/Session "s1" is active .*erase with force/)
    expect(await store.head('s1')).toBeGreaterThan(0)
    expect(await run('erase', 's1', '--table', 't', '--force')).toBe(0)
    expect(await store.head('s1')).toBe(0)
  })

  it('a refused erase is read-only: it writes no item (no reducer snapshot of the conversation)', async () => {
    const live = memoryEventStore()
    const script = scriptedModel([{ hang: true, parts: text('Wait', { chunks: 2 }).slice(0, 3) }])
    const a = track(agent({ name: 'cli', model: script.model, store: live }))
    const notes = Array.from({ length: 120 }, (_, i) => ({ type: 'note.added', payload: { i } }))
    for (let i = 0; i < notes.length; i += 40) {
      await live.append(
        's1',
        notes.slice(i, i + 40).map((note, j) => ({ ...note, id: `n${i + j}` })),
      )
    }
    await a.session('s1').append(...inputs.message(userMessage('m1', 'Hi')))
    await until(async () => (await a.session('s1').state()).state.active?.phase === 'generating')
    // The same log on a table with no snapshot yet: folding it is 120 events
    // past any stored state, so a reader that stores snapshots would store one.
    const table = memoryEventStore()
    await importSession(table, await exportSession(live, 's1'))
    const writes: string[] = []
    const reads = new Set(['read', 'head', 'tail', 'readSnapshot', 'readCursor', 'readClaim'])
    const watched = new Proxy(table, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (!reads.has(String(name))) writes.push(String(name))
          return value.apply(target, args)
        }
      },
    })
    const { run } = cli(watched)
    expect(await run('erase', 's1', '--table', 't')).toBe(1)
    expect(writes).toEqual([])
    expect(await table.readSnapshot('s1', sessionReducer(undefined).name)).toBeUndefined()
    expect(await run('erase', 's1', '--table', 't', '--force', '--json')).toBe(0)
    expect(writes).toEqual(['erase'])
  })

  it('export writes JSONL that import reads back into an empty session only', async () => {
    const source = memoryEventStore()
    await answered(source, 's1')
    const dir = await mkdtemp(join(tmpdir(), 'a2-export-'))
    const file = join(dir, 's1.jsonl')
    expect(await cli(source).run('export', 's1', '--table', 't', '--out', file)).toBe(0)
    const stdout = cli(source)
    await stdout.run('export', 's1', '--table', 't')
    expect(stdout.out.join('')).toBe(await readFile(file, 'utf8'))

    const target = memoryEventStore()
    const imported = cli(target)
    expect(await imported.run('import', file, '--table', 't')).toBe(0)
    expect(imported.out.join('')).toBe(
      `imported ${await source.head('s1')} events into session s1\n`,
    )
    // The same log, in the target's own life of the session (an import starts one).
    const withoutLife = (events: StoredEvent[]) => events.map(({ life: _life, ...event }) => event)
    expect(withoutLife(await target.read('s1'))).toEqual(withoutLife(await source.read('s1')))
    expect(await imported.run('import', file, '--table', 't')).toBe(1)
    expect(imported.err.join('')).toContain('already has')

    // From stdin, under another session ID.
    const other = memoryEventStore()
    const piped = cli(other, await readFile(file, 'utf8'))
    expect(await piped.run('import', '-', '--table', 't', '--session', 'copy')).toBe(0)
    expect(await other.head('copy')).toBe(await source.head('s1'))
  })

  it("export --snapshot carries the session's stored snapshot of that reducer (version 2), for a2-aws check", async () => {
    const store = memoryEventStore()
    await answered(store, 's1')
    const reducer = sessionReducer(undefined)
    await eventLog({ store, snapshotEvery: 1 }).session('s1').state(reducer)
    const { run, out } = cli(store)
    expect(await run('export', 's1', '--table', 't', '--snapshot', reducer.name)).toBe(0)
    const lines = out.join('').trimEnd().split('\n')
    const head = await store.head('s1')
    expect(JSON.parse(lines[0] as string)).toMatchObject({ version: 2, events: head, snapshots: 1 })
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({
      snapshot: reducer.name,
      index: head,
    })
    expect(parseSessionExport(out.join('')).snapshots).toHaveLength(1)
  })

  it('export --sample writes up to n sessions of the table, one <sessionId>.jsonl each, into --out', async () => {
    const store = memoryEventStore()
    const a = track(
      agent({ name: 'cli', model: scriptedModel([text('One.'), text('Two.')]).model, store }),
    )
    for (const id of ['s1', 's/3']) {
      await a.session(id).append(...inputs.message(userMessage(`m-${id}`, 'Hi')))
      await a.runtime.idle()
    }
    const out: string[] = []
    const asked: number[] = []
    const dir = join(await mkdtemp(join(tmpdir(), 'a2-sample-')), 'sessions')
    const code = await lifecycleCommand(
      'export',
      ['--table', 'staging', '--sample', '2', '--out', dir],
      {
        stdout: (text) => void out.push(text),
        stderr: () => {},
        store: () => store,
        sessionIds: async ({ table }, limit) => {
          asked.push(limit)
          return table === 'staging' ? ['s1', 's/3', 'never-read'].slice(0, limit) : []
        },
      },
    )
    expect(code).toBe(0)
    expect(asked).toEqual([2])
    expect(out.join('')).toBe(`exported 2 sessions to ${dir}\n`)
    expect((await readdir(dir)).sort()).toEqual(['s%2F3.jsonl', 's1.jsonl'])
    const exported = parseSessionExport(await readFile(join(dir, 's%2F3.jsonl'), 'utf8'))
    expect(exported.sessionId).toBe('s/3')
    expect(exported.events).toHaveLength(await store.head('s/3'))
    const { run, err } = cli(store)
    expect(await run('export', '--table', 't', '--sample', 'ten', '--out', dir)).toBe(2)
    expect(await run('export', '--table', 't', '--sample', '2')).toBe(2)
    expect(await run('export', 's1', '--table', 't', '--sample', '2', '--out', dir)).toBe(2)
    expect(err.join('\n')).toMatch(
      /--sample takes a number of sessions, not "ten"[\s\S]*--out <dir>[\s\S]*name no session/,
    )
  })

  it('answers wrong arguments with the usage and exit 2', async () => {
    const { run, err } = cli(memoryEventStore())
    expect(await run('erase', 's1')).toBe(2)
    expect(err.join('')).toContain('--table <name>')
    expect(await run('export', '--table', 't')).toBe(2)
    expect(await run('erase', 'a', 'b', '--table', 't')).toBe(2)
    const broken = join(await mkdtemp(join(tmpdir(), 'a2-import-')), 'broken.jsonl')
    await writeFile(broken, 'not an export\n')
    expect(await run('import', broken, '--table', 't')).toBe(1)
    expect(err.at(-1)).toContain('Invalid session export at line 1')
  })

  it('erase and import refuse before their first write when the grant check finds actions missing (exit 2, OPERATOR_NOT_GRANTED)', async () => {
    const store = memoryEventStore()
    await answered(store, 's9')
    const events = await store.head('s9')
    const jsonl = await exportSession(store, 's9')
    const checked: unknown[] = []
    const err: string[] = []
    const cancelled: string[] = []
    const io = {
      stdout: () => {},
      stderr: (line: string) => void err.push(line),
      store: () => store,
      stdin: async () => jsonl,
      cancelTimers: () => async (sessionId: string) => {
        cancelled.push(sessionId)
        return 0
      },
      deniedActions: async (check: unknown) => {
        checked.push(check)
        return ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem']
      },
    }
    expect(
      await lifecycleCommand('erase', ['s9', '--table', 't', '--schedule-group', 'g'], io),
    ).toBe(2)
    expect(err.at(-1)).toBe(
      'a2-aws erase: your AWS credentials may not dynamodb:BatchWriteItem, dynamodb:DeleteItem (on table t and schedule group g), which erase needs: nothing was written. Give them the erase policy (docs/operations.md, "What the commands need"; in CDK, agent.grantErase(principal)) and run it again',
    )
    // Not a timer cancelled, not an item erased.
    expect(cancelled).toEqual([])
    expect(await store.head('s9')).toBe(events)
    expect(await lifecycleCommand('import', ['-', '--table', 't', '--session', 's10'], io)).toBe(2)
    expect(err.at(-1)).toMatch(/^a2-aws import: .*grantImport/)
    expect(await store.head('s10')).toBe(0)
    expect(checked).toEqual([
      { command: 'erase', sessionId: 's9', scheduleGroup: 'g' },
      { command: 'import', sessionId: 's10' },
    ])
    // A session ID the store refuses is refused as before (exit 1), not probed.
    expect(await lifecycleCommand('erase', ['', '--table', 't'], io)).toBe(1)
    expect(err.at(-1)).toMatch(/^a2-aws erase: /)
    expect(checked).toHaveLength(2)
  })
})
