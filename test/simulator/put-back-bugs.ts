import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { dynamodbOnMoto } from './dynamodb-store.ts'

/** One edit that puts a bug back: in `file` (under shared/), `fixed` becomes `broken`. */
interface Edit {
  file: string
  fixed: string
  broken: string
}

/**
 * The runtime bugs of issue 27's turn, each as the edits that undo its fix
 * (the commits that fixed them: 29d24e4, 376805a).
 */
export const PUT_BACK: Record<
  string,
  {
    says: string
    edits: Edit[]
    /** The store the bug is in (default: the memory store); DynamoDB runs on moto, an instance per process. */
    on?: 'dynamodb'
    /** Runs with a deploy mid-run (`simulate({ deploys: true })`): the bug is in a deploy's rules. */
    deploys?: true
  }
> = {
  'deploy-skips-schema-check': {
    says: "issue 38's rule for a call made under another version: an approved call is run by the new version without checking its input against the tool's schema as the new version has it, so a tool runs on input its schema refuses",
    deploys: true,
    edits: [
      {
        file: 'agent/lanes/tools-lane.ts',
        fixed:
          'if (record.version === version || definition.inputSchema === undefined) return { input }',
        broken: 'return { input }',
      },
    ],
  },
  'stale-hint': {
    says: "issue 37's first case: a DynamoDB store instance's hints of where a session's log ends are not tied to the life they were learned in: an instance that saw a life reach far goes on with that end once it meets the session erased and started over elsewhere, appends past the new life's events, behind the old one's tombstones, and the session is wedged",
    on: 'dynamodb',
    edits: [
      {
        file: 'stores/dynamodb/session-hints.ts',
        fixed: 'return hint?.life === life ? hint : { life, last: 0 }',
        broken: 'return hint ? { ...hint, life } : { life, last: 0 }',
      },
    ],
  },
  'store-global-metadata-id': {
    says: "a model's metadata request and answer had one ID per model in the whole store: the second session with a Gateway model hung (29d24e4)",
    edits: [
      {
        file: 'model/controller/generation-attempt.ts',
        fixed: "sessionScopedId('model-metadata', attempt.sessionId, modelId)",
        broken: "derivedId('model-metadata', modelId)",
      },
      {
        file: 'agent/lanes/metadata-lane.ts',
        fixed: "sessionScopedId('model-metadata-resolved', sessionId, modelId)",
        broken: "sessionScopedId('model-metadata-resolved', modelId, '')",
      },
    ],
  },
  'unstorable-output-reruns': {
    says: 'model output the log refused (too large) ended the attempt instead of failing the step: the step, and the tools it had called, ran again and again (376805a; a tool ran 388 times)',
    edits: [
      {
        file: 'agent/model-step/step-stream.ts',
        fixed: `    if (isContentRefusal(writeFailure.error))
      return { error: unstorable(writeFailure.error), recordedCalls }`,
        broken: '',
      },
      {
        file: 'agent/model-step/step-writes.ts',
        fixed: `      if (!isContentRefusal(error)) throw error
      return fail(unstorable(error))`,
        broken: `      if (error) throw error
      return fail(unstorable(error))`,
      },
      {
        // And a step given up on after its attempts did not fail its turn: it was tried again.
        file: 'model/controller/dead-letter.ts',
        fixed:
          "lane === 'generation' && onCalls.length === 0 ? stepToServe(state)?.requestId : undefined",
        broken: "lane === 'generation' && stepToServe && onCalls ? undefined : undefined",
      },
    ],
  },
  'failed-step-retries-recorded-calls': {
    says: "issue 33's intent oracle: a model stream that failed after it recorded a tool call failed its step, and Retry asked the model again for the same intent under a new call: the email went twice, while each call ran under its own key",
    edits: [
      {
        file: 'agent/model-step/step-ending.ts',
        fixed: 'if (streamed.error !== undefined && !streamed.recordedCalls)',
        broken: 'if (streamed.error !== undefined)',
      },
    ],
  },
  'key-of-provider-call-id': {
    says: "issue 33's intent oracle: a tool call's idempotency key left out its model step, so every step's call_0 (providers reuse the IDs) shared one: the payment service took a later turn's charge for a retry of the first, and it never happened",
    edits: [
      {
        file: 'model/ids/ids.ts',
        fixed: "idempotentId('a2.tool-call', sessionId, life, call.generationId, call.toolCallId)",
        broken: "idempotentId('a2.tool-call', sessionId, life, call.toolCallId)",
      },
    ],
  },
  'progress-conflict-dropped': {
    says: "issue 33's content oracle: the at-index writer dropped a batch of streamed progress that lost the race for its index (it is only progress), and the transcript lost those words while every fold of the log agreed with itself",
    edits: [
      {
        file: 'agent/lanes/at-index-writer.ts',
        fixed: `          if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
        }
        await moveOn()`,
        broken: `          if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
          if (progress) return []
        }
        await moveOn()`,
      },
    ],
  },
  'takeover-decides-before-claim': {
    says: "issue 37's second case: a takeover chose between closing a step and running it again on a state it read before it took the claim; an attempt still alive whose claim ran out (a frozen container) recorded a tool call in that window, and the takeover asked the model again: the tool ran twice while the transcript shows one call",
    edits: [
      {
        file: 'agent/lanes/generation-lane.ts',
        fixed: 'if (claim.previous === undefined) return read',
        broken: 'if (claim.previous === undefined || claim.attempt > 0) return read',
      },
    ],
  },
  'decided-push-wakes-what-it-returns': {
    says: "issue 33's lost wake-ups: a server append that decided a message where it wrote it woke the lanes of the events it returns (the message alone), not of the batch it stored: the model step was woken only by the stream router's backstop, which the simulator's checks once could not see behind",
    edits: [
      {
        file: 'agent/wiring/invocation-ports.ts',
        fixed: '...wakeUpsFor(stored, config),',
        broken: '...wakeUpsFor(stored.slice(0, events.length), config),',
      },
    ],
  },
  'decided-push-skips-revoke': {
    says: 'issue 34: a command decided where it is written even when the decision ends running work, whose claims only admission revokes (a Stop, an interruption): the work it ended runs on',
    edits: [
      {
        file: 'agent/session/decided-push.ts',
        fixed: "if (rounds.stop !== 'settled' || rounds.events.length === 0) return asPushed()",
        broken: "if (rounds.stop === 'unsettled' || rounds.events.length === 0) return asPushed()",
      },
      {
        file: 'agent/session/decided-push.ts',
        fixed: 'decides: true,\n    })',
        broken: 'decides: true,\n      revokes: true,\n    })',
      },
    ],
  },
  'sse-no-rewind': {
    says: "not a bug of the turn: the client's SSE subscription without its rewind when the server's log is shorter than what it applied (an erased session), to show the simulated browsers read the real client through reconnects",
    edits: [
      {
        file: 'client/sse-subscription.ts',
        fixed:
          'if (options.onRewind && Number(head[1]) < options.lastIndex()) attempt.rewound = true',
        broken: 'if (options.onRewind && Number(head[1]) < 0) attempt.rewound = true',
      },
    ],
  },
}

/**
 * A put-back bug may make a run loop: it is called a livelock after this many
 * agenda entries (a passing seed takes a few thousand), not the default's
 * 200,000, so a search takes seconds. A seed counts only if it passes on the
 * fixed code with the same budget.
 */
const MAX_STEPS = 8_000

/** What the simulator found with a bug put back. */
export interface PutBackFinding {
  /** The first failing seed. */
  seed: number
  tried: number
  broken: string[]
  /** With `every`: all the seeds tried that failed. */
  failing: number[]
}

/**
 * Copies shared/ to `.put-back/<bug>/shared` (inside the repository, so its
 * packages resolve), makes the bug's edits there, and runs the copy's
 * simulator from seed `from` until a seed fails there and passes on the
 * fixed code, at most `seeds` seeds.
 */
export async function findPutBackBug(
  name: string,
  {
    from = 1,
    seeds = 200,
    every = false,
    maxSteps = MAX_STEPS,
  }: {
    from?: number
    seeds?: number
    /** Try every seed, not stop at the first failing. */
    every?: boolean
    maxSteps?: number
  } = {},
): Promise<PutBackFinding | undefined> {
  const bug = PUT_BACK[name]
  if (!bug) throw new TypeError(`No bug "${name}" to put back`)
  const root = join(import.meta.dirname, '..', '..')
  const copy = join(root, '.put-back', name)
  rmSync(copy, { recursive: true, force: true })
  mkdirSync(copy, { recursive: true })
  cpSync(join(root, 'shared'), join(copy, 'shared'), { recursive: true })
  for (const edit of bug.edits) {
    const path = join(copy, 'shared', edit.file)
    const source = readFileSync(path, 'utf8')
    if (!source.includes(edit.fixed)) {
      throw new Error(`put-back ${name}: ${edit.file} no longer has ${JSON.stringify(edit.fixed)}`)
    }
    writeFileSync(path, source.replace(edit.fixed, edit.broken))
  }
  const simulator = join(copy, 'shared', 'testing', 'simulator', 'index.ts')
  const { simulate } = (await import(
    pathToFileURL(simulator).href
  )) as typeof import('../../shared/testing/simulator/index.ts')
  const fixed = await import('../../shared/testing/simulator/index.ts')
  // A DynamoDB bug runs on moto, the copy's store against the product's.
  const onMoto =
    bug.on === 'dynamodb'
      ? {
          broken: await dynamodbOnMoto(
            (await import(
              pathToFileURL(join(copy, 'shared', 'stores', 'dynamodb', 'dynamodb-event-store.ts'))
                .href
            )) as typeof import('../../shared/stores/dynamodb/dynamodb-event-store.ts'),
          ),
          fixed: await dynamodbOnMoto(),
        }
      : undefined
  try {
    let found: PutBackFinding | undefined
    for (let seed = from; seed < from + seeds; seed++) {
      const report = await simulate({
        seed,
        maxSteps,
        ...(onMoto ? { store: onMoto.broken.store } : {}),
        ...(bug.deploys ? { deploys: true } : {}),
      })
      if (report.failures.length === 0) continue
      // Only what the fix holds: the same seed, the same budget, passes on the fixed code.
      const again = await fixed.simulate({
        seed,
        maxSteps,
        ...(onMoto ? { store: onMoto.fixed.store } : {}),
        ...(bug.deploys ? { deploys: true } : {}),
      })
      if (again.failures.length > 0) continue
      found ??= {
        seed,
        tried: seed - from + 1,
        broken: report.failures.flatMap((failure) =>
          failure.broken.map((line) => `${failure.sessionId}: ${line}`),
        ),
        failing: [],
      }
      found.failing.push(seed)
      if (!every) break
    }
    if (found && every) found.tried = seeds
    return found
  } finally {
    onMoto?.broken.close()
    onMoto?.fixed.close()
    rmSync(copy, { recursive: true, force: true })
  }
}
