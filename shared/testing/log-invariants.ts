import type { StoredEvent } from '../log/event.ts'

// What must hold of any session's log once its work is over, whoever drove
// it: the simulator's checks and the soak's both start here.

/**
 * The log's own invariants, each broken one a sentence: gapless, each ID
 * once, every event an append returned still there where it said, each
 * command with one receipt, and every turn that started ended (completed,
 * stopped, or `failedTurn`: the turn that is failed, waiting for `retry()`).
 */
export function brokenLogInvariants(
  events: readonly StoredEvent[],
  returned: readonly { id: string; index: number }[],
  { failedTurn }: { failedTurn?: string } = {},
): string[] {
  const broken: string[] = []
  events.forEach((event, position) => {
    if (event.index !== position + 1)
      broken.push(`event ${event.id} is at ${event.index}, not ${position + 1}`)
  })
  const byId = new Map<string, StoredEvent>()
  for (const event of events) {
    if (byId.has(event.id)) broken.push(`event ID ${event.id} is in the log twice`)
    byId.set(event.id, event)
  }
  for (const { id, index } of returned) {
    if (byId.get(id)?.index !== index)
      broken.push(`event ${id} (#${index}), returned by an append, is lost`)
  }

  const receipts = new Map<string, number>()
  for (const event of events) {
    if (event.type !== 'ai.control.decided') continue
    const { commandId } = event.payload as { commandId: string }
    receipts.set(commandId, (receipts.get(commandId) ?? 0) + 1)
  }
  for (const event of events) {
    if (event.type !== 'ai.control.requested') continue
    const count = receipts.get(event.id) ?? 0
    if (count !== 1) broken.push(`command ${event.id} has ${count} receipts`)
  }

  const started = new Set<string>()
  const ended = new Set<string>(failedTurn === undefined ? [] : [failedTurn])
  for (const event of events) {
    const payload = event.payload as {
      turnId?: string
      changes?: { op: string; turnId?: string }[]
    }
    if (event.type === 'ai.message.completed' && payload.turnId) ended.add(payload.turnId)
    for (const change of payload.changes ?? []) {
      if (change.op === 'turn.start' && change.turnId) started.add(change.turnId)
      if (change.op === 'turn.stop' && change.turnId) ended.add(change.turnId)
    }
  }
  for (const turnId of started) if (!ended.has(turnId)) broken.push(`turn ${turnId} never ended`)
  return broken
}
