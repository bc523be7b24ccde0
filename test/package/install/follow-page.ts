import { execFile } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { PAGE, type PageStep, pageSteps } from './docs-page.ts'

const run = promisify(execFile)

/** The tarball's path as the page's install line writes it (`npm pack` in a clone beside the project). */
export const PAGE_TARBALL = /\.\.\/a2-aws\/(a2-aws-[\d.]+\.tgz)/

/** Who follows the page: an empty folder, or an app that has its own package.json and React. */
export interface Reader {
  existingApp: boolean
  /** The packed tarball, for the page's tarball path: the one substitution. */
  tarball: string
  /** The user's shell (`userShellEnv()`), with the test's npm settings. */
  env: NodeJS.ProcessEnv
  /** The page's long-running command (`npm start`), which a reader leaves running in a terminal of its own. */
  startInBackground(command: string): Promise<void>
}

/** What the reader did with each of the page's commands. */
export interface Followed {
  ran: string[]
  /** Each command not run, with why. */
  skipped: { command: string; why: string }[]
}

/**
 * The page's conditions, as its own comments state them: a line that ends
 * with one of these runs only for the reader it names.
 */
const CONDITIONS: { comment: string; applies: (reader: Reader) => boolean }[] = [
  { comment: '# an empty folder only', applies: (reader) => !reader.existingApp },
  { comment: '# an app without React only', applies: (reader) => !reader.existingApp },
]

/** The page's `npm start`, with any variables the line sets before it (`A2_MODEL=offline npm start`). */
const START = /^(?:[A-Z][A-Z0-9_]*=\S*\s+)*npm start\b/

/** Commands the test cannot run as a user would, and what it does instead. */
const NOT_RUN: { command: RegExp; why: string }[] = [
  {
    command: /^\(cd \.\.\/a2-aws && /,
    why: "the test packs this checkout, which is what the clone's npm pack makes",
  },
  {
    command: /^npx cdk (bootstrap|deploy)\b/,
    why: 'needs an AWS account: the test reads the synthesized template instead',
  },
]

/**
 * Follows docs/use-in-your-project.md in `project`, top to bottom: writes
 * each file where the page says it lives, and runs each command line in
 * bash there, as pasted, with the tarball's path swapped for the packed
 * tarball. `npm start` (with the variables its line sets) goes to the
 * background (`startInBackground`).
 * A failing command throws with its line on the page and its output.
 */
export async function followPage(project: string, reader: Reader): Promise<Followed> {
  const followed: Followed = { ran: [], skipped: [] }
  const seen = new Set<string>()
  for (const step of pageSteps()) {
    if (step.kind === 'file') {
      mkdirSync(dirname(join(project, step.path)), { recursive: true })
      writeFileSync(join(project, step.path), step.content)
      continue
    }
    const command = step.command.trim()
    const condition = CONDITIONS.find(({ comment }) => command.endsWith(comment))
    if (condition) seen.add(condition.comment)
    const notRun = NOT_RUN.find((rule) => rule.command.test(command))
    if (notRun) {
      followed.skipped.push({ command, why: notRun.why })
    } else if (condition && !condition.applies(reader)) {
      followed.skipped.push({ command, why: `the page says ${condition.comment.slice(2)}` })
    } else if (START.test(command)) {
      await reader.startInBackground(command)
      followed.ran.push(command)
    } else {
      await runLine(project, step, command.replace(PAGE_TARBALL, reader.tarball), reader.env)
      followed.ran.push(command)
    }
  }
  const unseen = CONDITIONS.filter(({ comment }) => !seen.has(comment))
  if (unseen.length > 0) {
    throw new Error(`${PAGE} no longer says ${unseen.map(({ comment }) => `"${comment}"`)}`)
  }
  return followed
}

async function runLine(
  project: string,
  step: PageStep,
  command: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  try {
    await run('bash', ['-c', command], {
      cwd: project,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    })
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    const tail = (text = '') => text.trim().split('\n').slice(-30).join('\n')
    throw new Error(
      `${PAGE}:${step.line}: \`${command}\` failed (exit ${failed.code}):\n${tail(failed.stderr)}\n${tail(failed.stdout)}`,
    )
  }
}
