import { type ToolSet, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import {
  agentContract,
  type EventDefinition,
  inputs,
  versionedEvent,
} from '../../../../shared/ai.ts'
import { eventLog, exportSession, memoryEventStore } from '../../../../shared/index.ts'
import { sessionReducer } from '../../../../shared/model/state/session-state.ts'
import {
  checkSessionCompatibility,
  checkSessions,
  formatCompatibilityReport,
  sessionFromExport,
  storeSessions,
} from '../../../../shared/testing/index.ts'
import { scriptedModel, text, toolCalls } from '../../../../shared/testing/scripted-model.ts'
import { track, until, userMessage } from '../../../support/agent-log.ts'

const ticketId = z.object({ ticketId: z.string() })
const closeTicket = tool({
  description: 'Close a support ticket',
  inputSchema: ticketId,
  execute: async ({ ticketId }) => ({ ticketId, closed: true }),
})
const lookup = tool({
  description: 'Look a ticket up',
  inputSchema: ticketId,
  execute: async ({ ticketId }) => ({ ticketId, status: 'open' }),
})

type Notes = { notes: string[] }
const notesContract = (
  noteSchema: EventDefinition = z.object({ text: z.string() }),
  reducer: { name: string; fold: (state: Notes, text: string) => Notes } = {
    name: 'notes.v1',
    fold: (state, text) => ({ notes: [...state.notes, text] }),
  },
) =>
  agentContract({
    name: 'desk',
    events: { 'note.added': noteSchema },
    reducer: {
      name: reducer.name,
      initialState: { notes: [] } as Notes,
      fold: (state, event) =>
        event.type === 'note.added'
          ? reducer.fold(state, (event.payload as { text: string }).text)
          : state,
    },
  })

/** The deployed code: two tools, closeTicket behind an approval, and a notes contract. */
function deployedAgent(
  options: { tools?: ToolSet; contract?: ReturnType<typeof notesContract> } = {},
) {
  return track(
    agent({
      name: 'desk',
      model: scriptedModel([]).model,
      tools: options.tools ?? { closeTicket, lookup },
      contract: options.contract ?? notesContract(),
    }),
  )
}

/**
 * A session as the deployed code left it: a note, a question answered with
 * a lookup, and a call of closeTicket awaiting approval, with the store's
 * snapshot of the session reducer at its end.
 */
async function recorded() {
  const store = memoryEventStore()
  const script = scriptedModel([
    toolCalls({ toolCallId: 'l1', toolName: 'lookup', input: { ticketId: 'T-1' } }),
    text('T-1 is open.'),
    toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'T-1' } }),
  ])
  const contract = notesContract()
  const a = track(
    agent({
      name: 'desk',
      model: script.model,
      store,
      tools: { closeTicket, lookup },
      contract,
      harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
    }),
  )
  await a.session('s1').append({ type: 'note.added', payload: { text: 'VIP customer' } })
  await a.session('s1').append(...inputs.message(userMessage('m1', 'Status of T-1?')))
  await a.runtime.idle()
  await a.session('s1').append(...inputs.message(userMessage('m2', 'Close it')))
  await a.runtime.idle()
  const { state } = await a.session('s1').state()
  expect(state.pendingApprovals).toMatchObject([{ toolCallId: 'c1', toolName: 'closeTicket' }])
  const reducer = sessionReducer(contract)
  await eventLog({ store, snapshotEvery: 1 }).session('s1').state(reducer)
  const jsonl = await exportSession(store, 's1', { snapshots: [reducer.name] })
  return { store, jsonl, session: sessionFromExport(jsonl, 'sessions/s1.jsonl') }
}

const kindsOf = (result: { findings: { kind: string }[] }) => result.findings.map((f) => f.kind)

describe('checkSessions: stored sessions against new code', () => {
  it('passes a session the unchanged agent reads as it was written', async () => {
    const { session } = await recorded()
    expect(session.snapshots).toHaveLength(1)
    const report = await checkSessions({ agent: deployedAgent(), sessions: [session] })
    expect(report).toMatchObject({ ok: true, sessions: 1, broken: [] })
    expect(report.events).toBe(session.events.length)
    expect(formatCompatibilityReport(report)).toContain('none would break')
  })

  it('finds a call awaiting approval of a tool the new code removed: it would get Unknown tool', async () => {
    const { session } = await recorded()
    const result = await checkSessionCompatibility(deployedAgent({ tools: { lookup } }), session)
    expect(result.findings).toEqual([
      expect.objectContaining({
        kind: 'tool-removed',
        sessionId: 's1',
        toolName: 'closeTicket',
        toolCallId: 'c1',
        type: 'ai.tool.called',
        message: expect.stringContaining(`'Unknown tool "closeTicket"'`),
      }),
    ])
    expect(result.findings[0]?.message).toContain('awaits approval')
  })

  it("finds a call awaiting approval whose input the tool's new inputSchema refuses", async () => {
    const { session } = await recorded()
    const changed = tool({
      description: 'Close a support ticket',
      inputSchema: z.object({ ticketId: z.number() }),
      execute: async ({ ticketId }) => ({ ticketId, closed: true }),
    })
    const result = await checkSessionCompatibility(
      deployedAgent({ tools: { closeTicket: changed, lookup } }),
      session,
    )
    expect(kindsOf(result)).toEqual(['tool-input-refused'])
    expect(result.findings[0]).toMatchObject({
      toolName: 'closeTicket',
      toolCallId: 'c1',
      path: 'input.ticketId',
      message: expect.stringContaining('expected number, received string'),
    })
  })

  it('finds an approved call that has not run (its execute still going when exported) of a removed tool', async () => {
    const store = memoryEventStore()
    const hanging = tool({
      description: 'Close a support ticket',
      inputSchema: ticketId,
      // Runs until the test ends: the call is approved and not done.
      execute: () => new Promise<{ closed: boolean }>(() => {}),
    })
    const a = track(
      agent({
        name: 'desk',
        model: scriptedModel([
          toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'T-1' } }),
        ]).model,
        store,
        tools: { closeTicket: hanging },
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      }),
    )
    await a.session('s2').append(...inputs.message(userMessage('m1', 'Close T-1')))
    await a.runtime.idle()
    const pending = (await a.session('s2').state()).state.pendingApprovals[0]
    if (!pending) throw new Error('no pending approval')
    await a.session('s2').append(...inputs.approval(pending, { approved: true }))
    await until(async () =>
      (await a.session('s2').state()).state.tools.some((call) => call.status === 'running'),
    )
    const session = sessionFromExport(await exportSession(store, 's2'))
    const result = await checkSessionCompatibility(deployedAgent({ tools: { lookup } }), session)
    expect(result.findings).toEqual([
      expect.objectContaining({ kind: 'tool-removed', toolName: 'closeTicket', toolCallId: 'c1' }),
    ])
    expect(result.findings[0]?.message).toContain('is approved or called and has not run')
  })

  it('finds a called call not yet run (a log cut after ai.tool.called) of a removed tool', async () => {
    const { session } = await recorded()
    const called = session.events.findIndex((event) => event.type === 'ai.tool.called')
    const cut = { ...session, events: session.events.slice(0, called + 1), snapshots: [] }
    const result = await checkSessionCompatibility(deployedAgent({ tools: { closeTicket } }), cut)
    expect(result.findings).toEqual([
      expect.objectContaining({ kind: 'tool-removed', toolName: 'lookup', index: called + 1 }),
    ])
    expect(result.findings[0]?.message).toContain('has not run')
  })

  it("finds an event the contract's changed schema refuses, with no upcaster: give one", async () => {
    const { session } = await recorded()
    const note = session.events.find((event) => event.type === 'note.added')
    const result = await checkSessionCompatibility(
      deployedAgent({
        contract: notesContract(z.object({ text: z.string(), author: z.string() })),
      }),
      session,
    )
    expect(result.findings).toEqual([
      expect.objectContaining({
        kind: 'event-refused',
        index: note?.index,
        type: 'note.added',
        path: 'payload.author',
        message: expect.stringContaining('upcaster'),
      }),
    ])
  })

  it('passes the same change once the event declares its new version with an upcaster from the old', async () => {
    const { session } = await recorded()
    const withUpcaster = deployedAgent({
      contract: notesContract(
        versionedEvent({
          version: 2,
          schema: z.object({ text: z.string(), author: z.string() }),
          upcast: { 1: (v1: { text: string }) => ({ ...v1, author: 'unknown' }) },
        }),
      ),
    })
    expect((await checkSessionCompatibility(withUpcaster, session)).findings).toEqual([])
    // An upcaster whose output the new schema refuses is found, not passed.
    const wrong = deployedAgent({
      contract: notesContract(
        versionedEvent({
          version: 2,
          schema: z.object({ text: z.string(), author: z.string() }),
          upcast: { 1: (v1: { text: string }) => ({ ...v1 }) },
        }),
      ),
    })
    expect((await checkSessionCompatibility(wrong, session)).findings).not.toEqual([])
  })

  it("finds a stored AI protocol event this a2-aws version's schema refuses, as a2-aws's own break", async () => {
    const { session } = await recorded()
    const at = session.events.findIndex((event) => event.type === 'ai.tool.called')
    const events = session.events.map((event, n) =>
      n === at ? { ...event, payload: { ...(event.payload as object), toolCallId: 7 } } : event,
    )
    const result = await checkSessionCompatibility(deployedAgent(), { ...session, events })
    expect(result.findings[0]).toMatchObject({
      kind: 'event-refused',
      index: at + 1,
      type: 'ai.tool.called',
      message: expect.stringContaining('a break of a2-aws itself'),
    })
  })

  it('finds a reducer that changed meaning under the same name, from the export’s snapshot', async () => {
    const { session } = await recorded()
    const upperCase = (state: Notes, text: string) => ({
      notes: [...state.notes, text.toUpperCase()],
    })
    const sameName = deployedAgent({
      contract: notesContract(undefined, { name: 'notes.v1', fold: upperCase }),
    })
    const result = await checkSessionCompatibility(sameName, session)
    expect(result.findings).toEqual([
      expect.objectContaining({
        kind: 'reducer-changed',
        index: session.snapshots?.[0]?.index,
        path: 'app.notes.0',
        message: expect.stringContaining('rename the reducer'),
      }),
    ])
    // Renamed, the snapshot is not the new reducer's: it refolds, nothing breaks.
    const renamed = deployedAgent({
      contract: notesContract(undefined, { name: 'notes.v2', fold: upperCase }),
    })
    expect(kindsOf(await checkSessionCompatibility(renamed, session))).toEqual([])
  })

  it("finds the same change from a store's own snapshot (storeSessions)", async () => {
    const { store } = await recorded()
    const upperCase = (state: Notes, text: string) => ({
      notes: [...state.notes, text.toUpperCase()],
    })
    const changed = deployedAgent({
      contract: notesContract(undefined, { name: 'notes.v1', fold: upperCase }),
    })
    const report = await checkSessions({
      agent: changed,
      sessions: storeSessions(store, ['s1'], changed, 'memory store'),
    })
    expect(report.ok).toBe(false)
    expect(report.broken).toEqual([
      expect.objectContaining({ sessionId: 's1', source: 'memory store' }),
    ])
    expect(kindsOf(report.broken[0] as never)).toEqual(['reducer-changed'])
    const text = formatCompatibilityReport(report)
    expect(text).toContain('session s1 (memory store):')
    expect(text).toContain('1 would break')
  })

  it('finds a reducer that throws on a stored event, and stops folding there', async () => {
    const { session } = await recorded()
    const throwing = deployedAgent({
      contract: notesContract(undefined, {
        name: 'notes.v2',
        fold: () => {
          throw new Error('notes must have an author')
        },
      }),
    })
    const result = await checkSessionCompatibility(throwing, session)
    expect(result.findings).toEqual([
      expect.objectContaining({
        kind: 'reducer-threw',
        type: 'note.added',
        message: expect.stringContaining('notes must have an author'),
      }),
    ])
  })

  it("finds an app state a snapshot's JSON would not keep", async () => {
    const { session } = await recorded()
    const withSet = deployedAgent({
      contract: notesContract(undefined, {
        name: 'notes.v2',
        fold: (state, text) => ({ ...state, seen: new Set([text]) }) as Notes,
      }),
    })
    const result = await checkSessionCompatibility(withSet, session)
    expect(result.findings).toEqual([
      expect.objectContaining({ kind: 'state-not-json', path: 'app.seen' }),
    ])
    expect(result.findings[0]?.message).toContain('a Set')
  })

  it('refuses a malformed or truncated export naming the file and line: never a pass', async () => {
    const { jsonl } = await recorded()
    const lines = jsonl.trimEnd().split('\n')
    const truncated = lines.slice(0, -2).join('\n')
    expect(() => sessionFromExport(truncated, 'sessions/s1.jsonl')).toThrow(
      expect.objectContaining({ code: 'INVALID_EXPORT', file: 'sessions/s1.jsonl' }),
    )
    const broken = [lines[0], lines[1], '{"index": 2, "id"', ...lines.slice(3)].join('\n')
    expect(() => sessionFromExport(broken, 'sessions/s1.jsonl')).toThrow(
      'Invalid session export sessions/s1.jsonl at line 3: not JSON',
    )
  })
})
