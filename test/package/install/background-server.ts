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
