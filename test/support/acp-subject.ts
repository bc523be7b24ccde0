import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type FxHarnessOptions, fxHarness } from '../../shared/harness/fx/index.ts'
import type { HarnessSubject, ModelCall } from '../../shared/testing/index.ts'
import { repoRoot } from './repo-root.ts'

/** The scripted ACP agent's command: this Node running test/support/acp-peer.ts on `dir`. */
export function acpPeerCommand(dir: string): string[] {
  return [process.execPath, join(repoRoot, 'test/support/acp-peer.ts'), dir]
}

/**
 * A scratch directory for one peer: its script (the steps in order, or by
 * the prompt's last text), the prompts it got, its release.
 */
export function acpPeerDir(
  script: unknown[] | Record<string, unknown>,
  approvals: readonly string[] = [],
) {
  const dir = mkdtempSync(join(tmpdir(), 'a2-acp-peer-'))
  writeFileSync(
    join(dir, 'script.json'),
    JSON.stringify(
      Array.isArray(script)
        ? { steps: script, approvals }
        : { steps: [], approvals, byPrompt: script },
    ),
  )
  return {
    dir,
    calls(): ModelCall[] {
      try {
        return readFileSync(join(dir, 'calls.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as ModelCall)
      } catch {
        return []
      }
    },
    /** The answers the agent got to its permission requests. */
    permissions(): unknown[] {
      try {
        return readFileSync(join(dir, 'permissions.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as unknown)
      } catch {
        return []
      }
    },
    /** The process IDs of the agent processes started on this directory. */
    pids(): number[] {
      try {
        return readFileSync(join(dir, 'pids.jsonl'), 'utf8').split('\n').filter(Boolean).map(Number)
      } catch {
        return []
      }
    },
    release() {
      writeFileSync(join(dir, 'released'), '')
    },
    remove() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * The FX harness on a real ACP agent process (test/support/acp-peer.ts)
 * that plays the suite's script: one step per ACP prompt turn, its tool
 * calls its own, permission asked for the tools the test names.
 */
export function acpSubject(options: Omit<FxHarnessOptions, 'command'> = {}): HarnessSubject {
  return {
    a2Tools: false,
    setUp(script, setup) {
      const peer = acpPeerDir([...script], setup?.approvals ?? [])
      return {
        model: 'openai/gpt-5.6-terra',
        harness: fxHarness({ ...options, command: acpPeerCommand(peer.dir) }),
        calls: () => peer.calls(),
        release: () => peer.release(),
        close: () => peer.remove(),
      }
    },
  }
}
