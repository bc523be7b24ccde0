import { type ChildProcess, spawn } from 'node:child_process'

/** The page's `npm start`, running in a terminal of its own. */
export interface BackgroundServer {
  /** The endpoint it printed (`agent on <url>`). */
  url: string
  output(): string
  /** Ends the shell, npm and the server: the process group the shell leads. */
  stop(): void
}

/**
 * Runs `command` (the page's `npm start`) in bash in `cwd`, in a process
 * group of its own, and resolves once it prints `agent on <url>`, as the
 * page's server does; rejects with its output if it exits first.
 */
export function startInBackground(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<BackgroundServer> {
  const shell: ChildProcess = spawn('bash', ['-c', command], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const stop = () => {
    if (shell.exitCode === null && shell.pid) process.kill(-shell.pid, 'SIGKILL')
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`\`${command}\` printed no URL within 60 s:\n${output}`))
    }, 60_000)
    shell.stderr?.on('data', (chunk) => {
      output += chunk
    })
    shell.stdout?.on('data', (chunk) => {
      output += chunk
      const found = /agent on (\S+)/.exec(output)
      if (found) {
        clearTimeout(timer)
        resolve({ url: found[1] as string, output: () => output, stop })
      }
    })
    shell.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`\`${command}\` exited (${code}) before it served:\n${output}`))
    })
  })
}

/** How a command ended: its exit code (`null` when it was still serving and was stopped) and all it printed. */
export interface BriefRun {
  code: number | null
  output: string
}

/**
 * Runs `command` in bash in `cwd` until it exits, or until its output
 * matches `serving` (then ends its process group): a server that should
 * not start, or whose start is all a test wants to see.
 */
export function runBriefly(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  serving: RegExp,
): Promise<BriefRun> {
  const shell = spawn('bash', ['-c', command], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (shell.pid) process.kill(-shell.pid, 'SIGKILL')
      reject(new Error(`\`${command}\` neither exited nor served within 60 s:\n${output}`))
    }, 60_000)
    const read = (chunk: Buffer) => {
      output += chunk
      if (serving.test(output) && shell.exitCode === null && shell.pid) {
        clearTimeout(timer)
        process.kill(-shell.pid, 'SIGKILL')
        resolve({ code: null, output })
      }
    }
    shell.stdout?.on('data', read)
    shell.stderr?.on('data', read)
    shell.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}
