// `npm run lint:layer-types` (part of `npm run lint:layers`): each layer of
// .dependency-cruiser.cjs type-checks alone, with only the files of the
// layers it may import (or know the types of). The whole-tree `tsc` cannot
// see what depcruise cannot either: an augmentation (an error code declared
// in `A2Codes`, say) is global once its file is in the program, so a layer
// that names a code declared above it compiles in the whole tree and in
// no program that lacks the layer above. Run from a tree's root:
//
//   node test/lint/layer-types.ts [--config <depcruise config>]
//
// The layers are read off the config's layer rules (`<layer>-imports-only-…`:
// `from.path` is the layer, `to.pathNot` the layers it may reach), so the
// table at the top of the config stays the one place that says them.
import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'

/** A layer: its files, and the files of the layers it may reach. */
interface Layer {
  name: string
  own: RegExp
  reaches: RegExp[]
}

interface LayerRule {
  name?: unknown
  from?: { path?: unknown }
  to?: { path?: unknown; pathNot?: unknown }
}

/** The layers, from the config's rules that confine each layer to the layers it may import. */
function layersOf(configPath: string): Layer[] {
  const config = createRequire(import.meta.url)(configPath) as { forbidden?: LayerRule[] }
  const layers: Layer[] = []
  for (const rule of config.forbidden ?? []) {
    const name = typeof rule.name === 'string' ? /^(.+)-imports-only-/.exec(rule.name)?.[1] : ''
    const own = rule.from?.path
    const reaches = rule.to?.pathNot
    // The layer rules are the ones over the whole project (`to.path`),
    // which the model's own order (`to.path: '^shared/model/'`) is not.
    if (!name || typeof own !== 'string' || !Array.isArray(reaches)) continue
    if (rule.to?.path !== '^(shared|functions|infra)/') continue
    layers.push({ name, own: new RegExp(own), reaches: reaches.map((path) => new RegExp(path)) })
  }
  if (layers.length === 0) {
    throw new Error(
      `${configPath} has no layer rules (\`<layer>-imports-only-…\` with from.path and to.pathNot): test/lint/layer-types.ts reads the layers off them`,
    )
  }
  return layers
}

/** The project's TypeScript files, relative to `root` (as the rules' paths are). */
function sourcesOf(root: string): string[] {
  return ['shared', 'functions', 'infra'].flatMap((top) => {
    const folder = join(root, top)
    try {
      return readdirSync(folder, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
        .map((entry) => relative(root, join(entry.parentPath, entry.name)))
        .filter((path) => !/(^|\/)(dist|node_modules)\//.test(path))
    } catch {
      return []
    }
  })
}

function compilerOptions(root: string): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )
  if (!parsed) throw new Error(`${root}/tsconfig.json did not parse`)
  return { ...parsed.options, noEmit: true }
}

/** The errors of each layer's own files, in a program of its files and those it may reach. */
function checkLayers(
  root: string,
  configPath: string,
): { name: string; files: number; errors: readonly ts.Diagnostic[] }[] {
  const options = compilerOptions(root)
  const host = ts.createCompilerHost(options)
  // One parse of each file for every layer's program: only the checking is per layer.
  const parsed = new Map<string, ts.SourceFile | undefined>()
  const getSourceFile = host.getSourceFile
  host.getSourceFile = (file, language, ...rest) => {
    if (!parsed.has(file)) parsed.set(file, getSourceFile.call(host, file, language, ...rest))
    return parsed.get(file)
  }
  const sources = sourcesOf(root)
  let previous: ts.Program | undefined
  return layersOf(configPath).map((layer) => {
    const own = sources.filter((path) => layer.own.test(path))
    const reached = sources.filter((path) => layer.reaches.some((reach) => reach.test(path)))
    const program = ts.createProgram(
      [...new Set([...own, ...reached])].map((path) => join(root, path)),
      options,
      host,
      previous,
    )
    previous = program
    const errors = own.flatMap((path) => {
      const source = program.getSourceFile(join(root, path))
      return source
        ? [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
        : []
    })
    return { name: layer.name, files: own.length, errors }
  })
}

function main(): void {
  const root = process.cwd()
  const flag = process.argv.indexOf('--config')
  const configPath = resolve(
    root,
    flag >= 0 ? (process.argv[flag + 1] ?? '') : '.dependency-cruiser.cjs',
  )
  const results = checkLayers(root, configPath)
  const format: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  }
  for (const { name, files, errors } of results) {
    if (errors.length === 0) {
      console.log(`✔ ${name} type-checks alone (${files} files)`)
      continue
    }
    console.error(`✘ ${name} does not type-check with only the layers it may import:`)
    console.error(ts.formatDiagnostics(errors, format))
  }
  if (results.some((result) => result.errors.length > 0)) process.exitCode = 1
}

main()
