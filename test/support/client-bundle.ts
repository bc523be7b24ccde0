import { gzipSync } from 'node:zlib'
import { build, type Metafile } from 'esbuild'
import { repoRoot } from './repo-root.ts'

// What a browser downloads for the client entry points: a minimal app on
// each, bundled by esbuild, minified, with React left out (the app's own, a
// peer). The apps import the package by its name, resolved through its
// `exports` with the `a2-source` condition, so the figure is the sources'
// as they stand (no `npm run build` first) and a test can check it in
// about a second; dist/ is tsc's output of the same modules, without types.

/** A minimal page on `useAgent()`. */
const REACT_PAGE = `
import { useAgent } from 'a2-aws/ai/react'

export function Chat({ sessionId }: { sessionId: string }) {
  const { messages, status, sendMessage } = useAgent({ api: '/api/agent', id: sessionId })
  return (
    <button type="button" disabled={status === 'failed'} onClick={() => void sendMessage('Hi')}>
      {messages.length}
    </button>
  )
}
`

/** A minimal script on \`createAgentClient()\`. */
const CLIENT_SCRIPT = `
import { createAgentClient } from 'a2-aws/ai/client'

const session = createAgentClient({ api: '/api/agent' }).session('s1')
session.subscribe(() => console.log(session.getSnapshot().messages.length))
await session.sendMessage('Hi')
`

export const CLIENT_BUNDLES = {
  'a2-aws/ai/react': { contents: REACT_PAGE, loader: 'tsx' },
  'a2-aws/ai/client': { contents: CLIENT_SCRIPT, loader: 'ts' },
} as const

export type ClientEntry = keyof typeof CLIENT_BUNDLES

export interface BundleSize {
  /** Minified bytes of the bundle. */
  bytes: number
  /** The same, gzipped: about what goes over the wire. */
  gzipBytes: number
  /** Bytes in the bundle by where they come from, largest first (a package, or a folder of ours). */
  contributors: { from: string; bytes: number }[]
  /** Every input that put bytes in the bundle (paths as esbuild's metafile has them). */
  inputs: string[]
}

/** Bundles the minimal app on `entry` and reads its size from esbuild's metafile. */
export async function clientBundleSize(entry: ClientEntry): Promise<BundleSize> {
  const app = CLIENT_BUNDLES[entry]
  const result = await build({
    stdin: { ...app, resolveDir: repoRoot, sourcefile: `${entry}-app.tsx` },
    absWorkingDir: repoRoot,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    conditions: ['a2-source'],
    external: ['react', 'react/*', 'react-dom', 'react-dom/*'],
    metafile: true,
    write: false,
    logLevel: 'silent',
  })
  const [output] = result.outputFiles
  if (!output) throw new Error(`esbuild wrote no bundle for ${entry}`)
  const [, meta] = Object.entries(result.metafile.outputs)[0] as [
    string,
    Metafile['outputs'][string],
  ]
  const bySource = new Map<string, number>()
  const inputs: string[] = []
  for (const [path, { bytesInOutput }] of Object.entries(meta.inputs)) {
    if (bytesInOutput === 0) continue
    inputs.push(path)
    const from = sourceOf(path)
    bySource.set(from, (bySource.get(from) ?? 0) + bytesInOutput)
  }
  return {
    bytes: output.contents.byteLength,
    gzipBytes: gzipSync(output.contents).byteLength,
    contributors: [...bySource]
      .map(([from, bytes]) => ({ from, bytes }))
      .sort((a, b) => b.bytes - a.bytes),
    inputs,
  }
}

/** `node_modules/zod/v4/core/api.js` is `zod`; `shared/model/state/x.ts` is `shared/model/state/`. */
function sourceOf(path: string): string {
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)
  if (packaged) return packaged[1] as string
  const slash = path.lastIndexOf('/')
  return slash === -1 ? path : path.slice(0, slash + 1)
}
