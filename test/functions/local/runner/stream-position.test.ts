import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fileStreamPositions } from '../../../../functions/local/runner/stream-position.ts'

// npm run local's stream position: where its router left off, kept in
// .a2-local/ so a restarted runner reads the stream on from there
// (local-pipeline-stream-position.integration.test.ts runs two runners on it).

const ARN =
  'arn:aws:dynamodb:us-east-1:123456789012:table/a2-local-events/stream/2026-12-01T10:00:00'
const file = () => join(mkdtempSync(join(tmpdir(), 'a2-position-')), '.a2-local', 'position.json')

function recordingLogger() {
  const warnings: string[] = []
  return { warnings, logger: { warn: (message: string) => warnings.push(message) } }
}

describe('npm run local keeps its stream position in .a2-local/', () => {
  it('reads none before the first write (the stream is read from its start), then what the last write kept, in another instance', () => {
    const path = file()
    expect(fileStreamPositions(path).read(ARN)).toEqual({})
    fileStreamPositions(path).write(ARN, { 'shardId-1': '1100000000017454423010' })
    fileStreamPositions(path).write(ARN, { 'shardId-1': '1100000000017454423042' })
    expect(fileStreamPositions(path).read(ARN)).toEqual({ 'shardId-1': '1100000000017454423042' })
    // Written beside the file and renamed over it: no draft is left behind.
    expect(readdirSync(join(path, '..'))).toEqual(['position.json'])
  })

  it("reads no position for another stream: a table made again (a new moto server) is read from its start, not from the old stream's numbers", () => {
    const path = file()
    fileStreamPositions(path).write(ARN, { 'shardId-1': '1100000000017454423042' })
    expect(fileStreamPositions(path).read(`${ARN.slice(0, -2)}59`)).toEqual({})
  })

  it('reads a file that holds no position as none, and says it reads the stream from its start', () => {
    const path = file()
    fileStreamPositions(path).write(ARN, {})
    for (const text of [
      'not json',
      '{"streamArn": 7}',
      `{"streamArn":"${ARN}","shards":{"s":1}}`,
    ]) {
      writeFileSync(path, text)
      const { warnings, logger } = recordingLogger()
      expect(fileStreamPositions(path, logger).read(ARN)).toEqual({})
      expect(warnings).toEqual([
        `a2 local runner: ${path} holds no stream position; reading the table's stream from its start`,
      ])
    }
    expect(existsSync(path)).toBe(true)
  })
})
