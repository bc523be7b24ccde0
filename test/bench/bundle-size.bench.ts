/**
 * The browser bundle of the client entry points (issue 23): a minimal page
 * on `useAgent()` (`a2-aws/ai/react`) and a minimal script on
 * `createAgentClient()` (`a2-aws/ai/client`), bundled by esbuild, minified,
 * with React left out (the app's own). Prints each bundle's size, gzipped
 * too, and what its bytes come from, read off esbuild's metafile. Target:
 * at most 150 KB minified (KB are 1,000 bytes, as the issue measured).
 * `test/package/client-bundle.test.ts` holds the target in `npm test`.
 *
 *   npm run bench -- bundle
 */
import { version as esbuildVersion } from 'esbuild'
import { CLIENT_BUNDLES, type ClientEntry, clientBundleSize } from '../support/client-bundle.ts'

const TARGET_BYTES = 150_000
const TOP = 10

const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`

console.log(
  `esbuild ${esbuildVersion}, minified, ESM for the browser, react and react-dom external; ` +
    'the package by its own entry points (the a2-source condition: its sources)',
)
const figures: Record<string, { bytes: number; gzipBytes: number; top: Record<string, number> }> =
  {}
for (const entry of Object.keys(CLIENT_BUNDLES) as ClientEntry[]) {
  const size = await clientBundleSize(entry)
  const met = size.bytes <= TARGET_BYTES ? 'met' : 'MISSED'
  console.log(
    `\n${entry}: ${kb(size.bytes)} minified, ${kb(size.gzipBytes)} gzipped (target <= ${kb(TARGET_BYTES)}: ${met})`,
  )
  const top = size.contributors.slice(0, TOP)
  const width = Math.max(...top.map(({ from }) => from.length))
  for (const { from, bytes } of top) {
    const share = ((bytes / size.bytes) * 100).toFixed(0).padStart(3)
    console.log(`  ${from.padEnd(width)}  ${kb(bytes).padStart(8)}  ${share}%`)
  }
  const rest = size.contributors.slice(TOP).reduce((sum, { bytes }) => sum + bytes, 0)
  if (rest > 0) console.log(`  ${'(the rest)'.padEnd(width)}  ${kb(rest).padStart(8)}`)
  figures[entry] = {
    bytes: size.bytes,
    gzipBytes: size.gzipBytes,
    top: Object.fromEntries(top.map(({ from, bytes }) => [from, bytes])),
  }
}
console.log(`\nBENCH_RESULT ${JSON.stringify({ bench: 'bundle-size', esbuildVersion, figures })}`)
