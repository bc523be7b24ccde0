import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Where the runner's stream mapping resumes: per shard, the sequence number
 * of the last record it has done with (routed, or dropped by the filter).
 * Lambda keeps this for a DynamoDB event source mapping, so a mapping never
 * reads again what it has invoked its function with, nor misses what was
 * written while no function ran; the runner keeps it here.
 */
export interface StreamPositions {
  /** The positions saved for this stream (none: read it from its start, as a new mapping does). */
  read(streamArn: string): Record<string, string>
  write(streamArn: string, positions: Record<string, string>): void
}

interface SavedPositions {
  streamArn: string
  shards: Record<string, string>
}

function isSaved(value: unknown): value is SavedPositions {
  if (typeof value !== 'object' || value === null) return false
  const { streamArn, shards } = value as Partial<SavedPositions>
  return (
    typeof streamArn === 'string' &&
    typeof shards === 'object' &&
    shards !== null &&
    Object.values(shards).every((sequenceNumber) => typeof sequenceNumber === 'string')
  )
}

/**
 * Stream positions kept in a file (`npm run local`: `.a2-local/stream-position.json`),
 * so a runner stopped or killed and started again on the same endpoint
 * resumes its stream where its router left off. Positions belong to one
 * stream: a table created again (a new moto server) has a new stream ARN,
 * whose reading starts from the beginning. A file that cannot be read as
 * positions is reported and read as none: the stream is then read from its
 * start, which costs wake-ups that find nothing to do, never a lost one.
 * Each write replaces the file whole (written beside it, then renamed), so
 * a runner killed mid-write leaves the old positions or the new ones.
 *
 * @example
 * const positions = fileStreamPositions(join(LOCAL_STATE_DIR, 'stream-position.json'))
 */
export function fileStreamPositions(
  path: string,
  logger: Pick<Console, 'warn'> = console,
): StreamPositions {
  return {
    read(streamArn) {
      let text: string
      try {
        text = readFileSync(path, 'utf8')
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return {}
        throw error
      }
      let saved: unknown
      try {
        saved = JSON.parse(text)
      } catch {
        saved = undefined
      }
      if (!isSaved(saved)) {
        logger.warn(
          `a2 local runner: ${path} holds no stream position; reading the table's stream from its start`,
        )
        return {}
      }
      return saved.streamArn === streamArn ? { ...saved.shards } : {}
    },
    write(streamArn, positions) {
      mkdirSync(dirname(path), { recursive: true })
      const draft = `${path}.${process.pid}`
      const saved: SavedPositions = { streamArn, shards: positions }
      writeFileSync(draft, `${JSON.stringify(saved)}\n`)
      renameSync(draft, path)
    },
  }
}
