import type { Diagnosis } from '../../../shared/model/inspect/diagnose.ts'
import type { StateChange } from '../../../shared/model/inspect/state-diff.ts'
import type { TimelineLine } from '../../../shared/model/inspect/timeline.ts'
import type { InspectReport } from './inspect-report.ts'

// The readable form of a report, for a terminal: one line per timeline entry,
// then the diagnosis; or the state at an index, or a diff.

const VALUE_LENGTH = 160

const clip = (text: string, length = VALUE_LENGTH): string =>
  text.length > length ? `${text.slice(0, length - 1)}…` : text

const json = (value: unknown): string => (value === undefined ? 'undefined' : JSON.stringify(value))

/** `HH:MM:SS.mmm` in UTC. */
const timeOfDay = (ms: number): string => new Date(ms).toISOString().slice(11, 23)

function ago(ms: number): string {
  const seconds = Math.round(ms / 1000)
  if (seconds < 120) return `${seconds}s ago`
  const minutes = Math.round(seconds / 60)
  if (minutes < 120) return `${minutes}m ago`
  return `${Math.round(minutes / 60)}h ago`
}

function timelineLines(lines: readonly TimelineLine[]): string[] {
  const at = (line: TimelineLine) =>
    line.lastIndex !== undefined && line.lastIndex !== line.index
      ? `#${line.index}-${line.lastIndex}`
      : `#${line.index}`
  const width = Math.max(0, ...lines.map((line) => at(line).length))
  const typeWidth = Math.max(0, ...lines.map((line) => line.type.length))
  return lines.map(
    (line) =>
      `${at(line).padStart(width)}  ${timeOfDay(line.time)}  ${line.author.padEnd(6)}  ${line.type.padEnd(typeWidth)}  ${line.summary}`,
  )
}

function diagnosisLines(diagnosis: Diagnosis): string[] {
  const turn =
    diagnosis.turnId === null
      ? 'no active turn'
      : `turn ${diagnosis.turnId}, phase ${diagnosis.phase}${diagnosis.turnVersion === undefined ? '' : `, started on version ${diagnosis.turnVersion}`}`
  const out = [
    `status: ${diagnosis.status} (${turn}${diagnosis.inbox > 0 ? `, ${diagnosis.inbox} queued` : ''})`,
  ]
  for (const wait of diagnosis.waits) {
    out.push(`  ${wait.stuck ? 'STUCK' : 'waits'} on ${wait.kind}: ${wait.says}`)
    if (wait.deadLetter) {
      const letter = wait.deadLetter
      out.push(
        `        dead letter #${letter.index}: the ${letter.lane} lane gave up after ${letter.attempts} attempts: ${letter.error}`,
      )
    }
  }
  if (diagnosis.deadLetters.length > 0) {
    out.push(
      `dead letters (${diagnosis.deadLetters.length}; a given-up model step failed its turn, a given-up tool its call; waking the session retries the rest):`,
    )
    for (const letter of diagnosis.deadLetters) {
      out.push(
        `  #${letter.index} ${letter.lane} lane${letter.key ? ` (${letter.key})` : ''} after ${letter.attempts} attempts: ${letter.error}`,
      )
    }
  }
  return out
}

function changeLine(change: StateChange): string {
  const path = change.path || '(state)'
  if (change.kind === 'added') return `  + ${path}: ${clip(json(change.after))}`
  if (change.kind === 'removed') return `  - ${path}: ${clip(json(change.before))}`
  return `  ~ ${path}: ${clip(json(change.before), 70)} -> ${clip(json(change.after), 70)}`
}

/** The report as text lines. */
export function renderText(report: InspectReport): string[] {
  const last = `last event ${new Date(report.lastEventAt).toISOString()} (${ago(report.now - report.lastEventAt)})`
  const out = [`session ${report.sessionId} from ${report.source}: head ${report.head}, ${last}`]
  if (report.at === undefined && report.diff === undefined) {
    out.push('', ...timelineLines(report.timeline), '', ...diagnosisLines(report.diagnosis))
    return out
  }
  if (report.at !== undefined) {
    const { index, event, state } = report.at
    out.push('')
    if (event) {
      const [line] = timelineLines([
        report.timeline.find((entry) => entry.index === index) ?? {
          index,
          time: event.timestamp,
          type: event.type,
          author: 'a2',
          summary: '',
        },
      ])
      out.push(
        `event #${index} (${event.id}):`,
        `  ${line?.trim()}`,
        `  payload: ${clip(json(event.payload), 400)}`,
      )
    } else out.push('index 0: before any event')
    out.push(`state after #${index}:`, JSON.stringify(state, null, 2))
  }
  if (report.diff !== undefined) {
    const { from, to, changes } = report.diff
    out.push(
      '',
      `state #${from} -> #${to}: ${changes.length} ${changes.length === 1 ? 'change' : 'changes'}`,
    )
    out.push(...changes.map(changeLine))
  }
  return out
}
