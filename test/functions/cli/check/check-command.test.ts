import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkCommand } from '../../../../functions/cli/check/check-command.ts'
import { memoryEventStore } from '../../../../shared/index.ts'
import { importSession } from '../../../../shared/log/session-export.ts'
import { calledNotRun, exportCopy, recordedExport } from '../../../support/recorded-export.ts'

const AGENTS = 'test/support/check-agents.ts'

function cli() {
  const out: string[] = []
  const err: string[] = []
  const store = memoryEventStore()
  const asked: number[] = []
  const run = (...argv: string[]) =>
    checkCommand(argv, {
      stdout: (text) => void out.push(text),
      stderr: (line) => void err.push(line),
      table: async ({ name }) => ({
        store,
        sessionIds: async (limit: number) => {
          asked.push(limit)
          return name === 'staging' ? ['s4'] : []
        },
      }),
    })
  return { run, out, err, store, asked }
}

let dir: string
let template: string
beforeAll(async () => {
  template = await recordedExport()
  dir = await mkdtemp(join(tmpdir(), 'a2-check-'))
  await mkdir(join(dir, 'done', 'nested'), { recursive: true })
  await writeFile(join(dir, 'done', 's1.jsonl'), exportCopy(template, 'template', 's1'))
  await writeFile(join(dir, 'done', 'nested', 's2.jsonl'), exportCopy(template, 'template', 's2'))
  await writeFile(join(dir, 'done', 'notes.txt'), 'not an export')
  await mkdir(join(dir, 'empty'))
  await writeFile(join(dir, 'pending.jsonl'), calledNotRun(exportCopy(template, 'template', 's3')))
})

describe('a2-aws check', () => {
  it('passes the exports of a directory (recursively, .jsonl only) the unchanged agent reads: exit 0', async () => {
    const { run, out, err } = cli()
    expect(await run('--agent', `${AGENTS}#current`, join(dir, 'done'))).toBe(0)
    expect(err).toEqual([])
    expect(out.join('')).toMatch(/^2 sessions \(\d+ events\) checked: none would break\n$/)
  })

  it('reports a session that would break, naming it, its file and why: exit 1', async () => {
    const { run, out } = cli()
    const pending = join(dir, 'pending.jsonl')
    expect(await run('--agent', `${AGENTS}#withoutLookup`, join(dir, 'done'), pending)).toBe(1)
    const text = out.join('')
    expect(text).toContain(`session s3 (${pending}):\n  tool-removed: tool call c1 of "lookup"`)
    expect(text).toContain('3 sessions')
    expect(text).toContain('1 would break')
  })

  it('prints the report as JSON with --json', async () => {
    const { run, out } = cli()
    expect(
      await run('--agent', `${AGENTS}#withoutLookup`, '--json', join(dir, 'pending.jsonl')),
    ).toBe(1)
    const report = JSON.parse(out.join(''))
    expect(report).toMatchObject({ ok: false, sessions: 1 })
    expect(report.broken[0].findings).toEqual([
      expect.objectContaining({ kind: 'tool-removed', toolName: 'lookup', sessionId: 's3' }),
    ])
  })

  it('stops at a malformed or truncated export, naming the file and line: exit 2, never a pass', async () => {
    const truncated = join(dir, 'truncated.jsonl')
    const lines = template.trimEnd().split('\n')
    await writeFile(
      truncated,
      `${lines.slice(0, 5).join('\n')}\n${(lines[5] as string).slice(0, 20)}`,
    )
    const { run, out, err } = cli()
    expect(await run('--agent', `${AGENTS}#current`, join(dir, 'done'), truncated)).toBe(2)
    expect(out).toEqual([])
    expect(err.join('')).toBe(
      `a2-aws check: Invalid session export ${truncated} at line 6: not JSON`,
    )
  })

  it('reads sessions and their snapshots from a table with --table and --session, or --sample', async () => {
    const { run, out, store, asked } = cli()
    await importSession(store, calledNotRun(exportCopy(template, 'template', 's4')))
    expect(
      await run('--agent', `${AGENTS}#withoutLookup`, '--table', 'staging', '--session', 's4'),
    ).toBe(1)
    expect(out.join('')).toContain('session s4 (table staging):')
    out.length = 0
    expect(
      await run('--agent', `${AGENTS}#withoutLookup`, '--table', 'staging', '--sample', '5'),
    ).toBe(1)
    expect(asked).toEqual([5])
    expect(out.join('')).toContain('session s4 (table staging):')
  })

  it('answers wrong arguments and agent modules it cannot use with the reason: exit 2', async () => {
    const cases: [string[], string][] = [
      [[join(dir, 'done')], '--agent'],
      [['--agent', `${AGENTS}#current`], 'name the exports'],
      [['--agent', `${AGENTS}#current`, join(dir, 'missing')], 'no such file or directory'],
      [['--agent', `${AGENTS}#current`, join(dir, 'empty')], 'no .jsonl export under'],
      [['--agent', AGENTS, join(dir, 'done')], 'exports several agents (current, withoutLookup)'],
      [['--agent', `${AGENTS}#nope`, join(dir, 'done')], 'has no export nope'],
      [['--agent', `${AGENTS}#notAnAgent`, join(dir, 'done')], 'is not an agent()'],
      [['--agent', 'no/such/module.js', join(dir, 'done')], 'cannot load no/such/module.js'],
      [['--agent', `${AGENTS}#current`, '--session', 's1'], 'read from a table'],
      [['--agent', `${AGENTS}#current`, '--table', 't'], '--session <id>..., or --sample <n>'],
      [
        ['--agent', `${AGENTS}#current`, '--table', 't', '--sample', '0'],
        '--sample takes a number',
      ],
    ]
    for (const [argv, said] of cases) {
      const { run, err } = cli()
      expect(await run(...argv), argv.join(' ')).toBe(2)
      expect(err.join(''), argv.join(' ')).toContain(said)
    }
  })
})
