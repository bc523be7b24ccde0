import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { sleep } from '../../shared/timing/sleep.ts'
import { ClearError } from '../exit-clearly.ts'

export const MOTO_INSTALL_HINT =
  "The integration tests and `npm run local` need the moto server (Python). Install it with: pip install 'moto[server]' (or point `npm run local` at another endpoint with A2_AWS_ENDPOINT)"

// Single-threaded on purpose: the threaded server lets two concurrent
// conditional writes both succeed, which would hide the races we test.
//
// Two changes to how moto runs, neither to what it answers:
// - It exits when its parent does (its stdin closes): a test run or `npm
//   run local` that crashes leaves no server behind, holding memory.
// - A transaction backs each table up once, not once per item: moto 5.2
//   deep-copies the whole table (its stream included) for every item of a
//   `TransactWriteItems` before applying any, so an append of 20 items on a
//   table of a few thousand copied it 20 times, and a soak's table made it
//   answer in a quarter of a second and grow by gigabytes. The copies are
//   identical (all taken before the first write), so one serves for all.
const MOTO_MAIN = [
  'import copy, os, sys, threading',
  'from werkzeug.serving import run_simple',
  'from moto.moto_server.werkzeug_app import DomainDispatcherApplication as D, create_backend_app as c',
  'from moto.dynamodb.models import DynamoDBBackend',
  'from moto.dynamodb.models.table import Table',
  'def _exit_with_parent():',
  '    sys.stdin.read()',
  '    os._exit(0)',
  'threading.Thread(target=_exit_with_parent, daemon=True).start()',
  '_transact = DynamoDBBackend.transact_write_items',
  'def _transact_once(self, transact_items):',
  '    deepcopy, backups = copy.deepcopy, {}',
  '    def once(value, memo=None):',
  '        if not isinstance(value, Table): return deepcopy(value, memo)',
  '        if id(value) not in backups: backups[id(value)] = deepcopy(value, memo)',
  '        return backups[id(value)]',
  '    copy.deepcopy = once',
  '    try: return _transact(self, transact_items)',
  '    finally: copy.deepcopy = deepcopy',
  'DynamoDBBackend.transact_write_items = _transact_once',
  "run_simple('127.0.0.1', int(sys.argv[1]), D(c), threaded=False)",
].join('\n')

export interface MotoServer {
  endpoint: string
  /** SDK client settings for this server: moto takes any credentials, the SDK wants some. */
  clientConfig: {
    endpoint: string
    region: string
    credentials: { accessKeyId: string; secretAccessKey: string }
  }
  pid: number
  stop(): void
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      )
    })
  })
}

export async function resetMoto(endpoint: string): Promise<void> {
  const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' })
  if (!response.ok) throw new Error(`moto reset answered ${response.status}`)
}

/** Starts moto on a free loopback port and waits until it answers. */
export async function startMotoServer({ timeoutMs = 30_000 } = {}): Promise<MotoServer> {
  const port = await freeLoopbackPort()
  const endpoint = `http://127.0.0.1:${port}`
  let output = ''
  let exited: string | undefined
  const child: ChildProcess = spawn(
    process.env.A2_PYTHON ?? 'python3',
    ['-c', MOTO_MAIN, String(port)],
    {
      // Its stdin is its lifeline: it exits when the pipe closes with us.
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  child.stdout?.on('data', (chunk) => {
    output = (output + chunk).slice(-4000)
  })
  child.stderr?.on('data', (chunk) => {
    output = (output + chunk).slice(-4000)
  })
  child.on('error', (error) => {
    exited = error.message
  })
  child.on('exit', (code, signal) => {
    exited ??= `exited with ${code ?? signal}`
  })
  const stop = (): void => {
    // moto ignores SIGTERM.
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
    try {
      process.kill(child.pid, 'SIGKILL')
    } catch {
      // Already gone (a second stop before the exit event): nothing to do.
    }
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (exited !== undefined) {
      const python = process.env.A2_PYTHON ?? 'python3'
      if (/ENOENT/.test(exited)) {
        throw new ClearError(
          `${python} was not found, and the moto server runs on it. ${MOTO_INSTALL_HINT}`,
        )
      }
      if (/No module named '?(moto|werkzeug)/.test(output)) {
        throw new ClearError(`moto is not installed for ${python}. ${MOTO_INSTALL_HINT}`)
      }
      throw new Error(
        `The moto server did not start (${exited}).\n${output.trim()}\n\n${MOTO_INSTALL_HINT}`,
      )
    }
    try {
      await resetMoto(endpoint)
      const clientConfig = {
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      }
      return { endpoint, clientConfig, pid: child.pid as number, stop }
    } catch {
      await sleep(100)
    }
  }
  stop()
  throw new Error(
    `The moto server did not answer within ${timeoutMs} ms.\n${output.trim()}\n\n${MOTO_INSTALL_HINT}`,
  )
}
