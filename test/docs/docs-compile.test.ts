import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { blockPath, type CodeBlock, codeBlocks, documentedPages } from '../support/code-blocks.ts'

// Every ```ts and ```tsx block of README.md and docs/ compiles against the
// package's entry points (as the seed samples do), with the project's
// compiler options. Each page's blocks are files of one folder inside the
// repo (so `a2-aws/...` resolves to the package itself): a block named
// `file=src/agent.ts` can be imported by the page's other blocks. A block
// fenced `ts partial` is a fragment: only its syntax is checked.
import { repoRoot as root } from '../support/repo-root.ts'

const folder = (doc: string): string => join(root, '.docs-check', doc.replace(/[/.]/g, '_'))

const pages = documentedPages().map((doc) => ({ doc, blocks: codeBlocks(doc) }))
const blocks = pages.flatMap((page) => page.blocks)
const whole = blocks.filter((block) => !block.partial)
const virtual = new Map(
  whole.map((block) => [join(folder(block.doc), blockPath(block)), block] as const),
)

function diagnosticsOfWholeBlocks(): Map<CodeBlock, string[]> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(String(diagnostic.messageText))
      },
    },
  )
  if (!parsed) throw new Error('tsconfig.json did not parse')
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    // A block without import or export is still a module (top-level await).
    moduleDetection: ts.ModuleDetectionKind.Force,
  }
  const host = ts.createCompilerHost(options)
  const { fileExists, readFile, getSourceFile, directoryExists } = host
  const folders = [...virtual.keys()].map((file) => file.slice(0, file.lastIndexOf('/')))
  host.directoryExists = (dir) =>
    folders.some((folder) => folder === dir || folder.startsWith(`${dir}/`)) ||
    (directoryExists?.(dir) ?? ts.sys.directoryExists(dir))
  host.fileExists = (file) => virtual.has(file) || fileExists(file)
  host.readFile = (file) => virtual.get(file)?.code ?? readFile(file)
  host.getSourceFile = (file, language, ...rest) => {
    const block = virtual.get(file)
    return block
      ? ts.createSourceFile(file, block.code, language, true)
      : getSourceFile(file, language, ...rest)
  }
  const program = ts.createProgram([...virtual.keys()], options, host)
  const found = new Map<CodeBlock, string[]>()
  for (const [file, block] of virtual) {
    const source = program.getSourceFile(file)
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ]
    found.set(
      block,
      diagnostics.map((diagnostic) => {
        const { line } =
          diagnostic.start === undefined || !source
            ? { line: 0 }
            : source.getLineAndCharacterOfPosition(diagnostic.start)
        return `${block.doc}:${block.line + 1 + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
      }),
    )
  }
  return found
}

describe('the docs compile as written', () => {
  it('finds the blocks of README.md and docs/ (and names each page that has some)', () => {
    expect(pages.filter((page) => page.blocks.length > 0).map((page) => page.doc)).toEqual(
      expect.arrayContaining(['README.md', 'docs/deploy.md', 'docs/use-in-your-project.md']),
    )
    expect(whole.length).toBeGreaterThan(10)
  })

  it('every ts/tsx block that is not marked partial type-checks against the package', () => {
    const found = diagnosticsOfWholeBlocks()
    expect([...found.values()].flat()).toEqual([])
    // One program over the package and its libraries (aws-cdk-lib's typings
    // are most of it): tens of seconds on a busy machine.
  }, 300_000)

  it('a third of the blocks at most are partial, so most of what a reader copies is checked whole', () => {
    const partial = blocks.filter((block) => block.partial)
    expect(
      partial.length,
      partial.map((block) => `${block.doc}:${block.line}`).join(', '),
    ).toBeLessThanOrEqual(blocks.length / 3)
  })

  it('every block marked partial is at least valid syntax', () => {
    const errors = blocks
      .filter((block) => block.partial)
      .flatMap((block) => {
        const { diagnostics = [] } = ts.transpileModule(block.code, {
          reportDiagnostics: true,
          fileName: `partial.${block.lang}`,
          compilerOptions: { jsx: ts.JsxEmit.ReactJSX },
        })
        return diagnostics.map(
          (d) =>
            `${block.doc}:${block.line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
        )
      })
    expect(errors).toEqual([])
  })
})
