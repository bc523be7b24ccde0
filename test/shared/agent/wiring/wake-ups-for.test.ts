import { describe, expect, it } from 'vitest'
import { wakeUpsFor } from '../../../../shared/agent/wiring/wake-ups-for.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'
import { SERIAL_TOOL_KEY } from '../../../../shared/model/ids/claim-keys.ts'
import { toolCallKey } from '../../../../shared/model/ids/ids.ts'

let index = 0
const event = (type: string, payload: unknown = {}): StoredEvent => ({
  sessionId: 's',
  life: '',
  index: ++index,
  id: `e${index}`,
  type,
  payload,
  timestamp: 0,
})
const committed = (...ops: string[]) =>
  event('ai.control.committed', { changes: ops.map((op) => ({ op })) })
const lanes = (events: StoredEvent[], handled: string[] = []) =>
  wakeUpsFor(events, { handledTypes: new Set(handled) }).map((wakeUp) => wakeUp.lane)

describe('which lanes new events wake', () => {
  it('wakes tools for a new call, an approval or a resume, and for nothing else', () => {
    expect(lanes([event('ai.tool.called')])).toContain('tools')
    expect(lanes([committed('approval.respond')])).toContain('tools')
    expect(lanes([committed('resume')])).toContain('tools')
    // A user message or a step without calls: no tool can have become runnable.
    expect(lanes([committed('inbox.add', 'turn.start')])).not.toContain('tools')
    expect(lanes([event('ai.generation.completed')])).not.toContain('tools')
  })

  it("wakes admission for everything but streamed chunks, dead letters and the controller's own events, once per batch", () => {
    expect(lanes([event('ai.generation.progress'), event('ai.handler.dead-lettered')])).toEqual([])
    expect(lanes([event('ai.control.decided'), event('ai.message.created')])).toEqual([])
    expect(lanes([event('ai.generation.completed'), event('ai.message.completed')])).toEqual([
      'admission',
    ])
  })

  it('wakes no admission for a command whose decision is in the same batch, and wakes it when the batch holds the command alone', () => {
    const command = event('ai.control.requested', { action: 'message' })
    const decided = event('ai.control.decided', { commandId: command.id, action: 'message' })
    const request = event('ai.generation.requested')
    // The POST's append: the command, its decision, the model step.
    expect(lanes([command, decided, request])).toEqual(['generation'])
    // A stream batch that split them: the command's half wakes admission.
    expect(lanes([command])).toEqual(['admission'])
    // Another command's decision decides nothing of this one.
    const other = event('ai.control.decided', { commandId: 'another', action: 'message' })
    expect(lanes([command, other])).toEqual(['admission'])
    // Nor does the same command ID in another session.
    expect(lanes([command, { ...decided, sessionId: 'elsewhere' }])).toEqual(['admission'])
  })

  it('wakes generation for a request or a superseded attempt, handlers for handled types, metadata for a lookup', () => {
    // The controller's own request: its lane needs no wake for it.
    expect(lanes([event('ai.generation.requested')])).toEqual(['generation'])
    expect(lanes([event('ai.generation.superseded')])).toEqual(['admission', 'generation'])
    expect(lanes([event('order.shipped')], ['order.shipped'])).toEqual(['admission', 'handlers'])
    expect(lanes([event('ai.model.metadata.requested')])).toEqual(['admission', 'metadata'])
  })

  it('wakes one metadata lookup per model, so a failing model is dead-lettered on its own', () => {
    const wakeUps = wakeUpsFor(
      [
        event('ai.model.metadata.requested', { modelId: 'a/one' }),
        event('ai.model.metadata.requested', { modelId: 'b/two' }),
      ],
      { handledTypes: new Set() },
    ).filter((wakeUp) => wakeUp.lane === 'metadata')
    expect(wakeUps).toMatchObject([
      { sessionId: 's', lane: 'metadata', key: 'a/one' },
      { sessionId: 's', lane: 'metadata', key: 'b/two' },
    ])
  })

  it("wakes a new call's own keyed tools run, not the scan that would wake it (one hop, not two)", () => {
    const called = event('ai.tool.called', { generationId: 'g1', toolCallId: 'call_0' })
    const tools = (serialTools: boolean) =>
      wakeUpsFor([called], { handledTypes: new Set(), serialTools }).filter(
        (wakeUp) => wakeUp.lane === 'tools',
      )
    // At the news it is for: the call's event, in its life.
    const at = { life: called.life, index: called.index }
    expect(tools(false)).toEqual([
      {
        sessionId: 's',
        lane: 'tools',
        key: toolCallKey({ generationId: 'g1', toolCallId: 'call_0' }),
        at,
      },
    ])
    expect(tools(true)).toEqual([{ sessionId: 's', lane: 'tools', key: SERIAL_TOOL_KEY, at }])
    // An approval may concern any call: the scan finds the runnable ones.
    expect(
      wakeUpsFor([committed('approval.respond')], { handledTypes: new Set() }).filter(
        (wakeUp) => wakeUp.lane === 'tools',
      ),
    ).toMatchObject([{ sessionId: 's', lane: 'tools' }])
  })
})
