import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

import { repoRoot as root } from '../support/repo-root.ts'

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts') && !file.includes('web/'))
    .map((file) => join(root, folder, file))
}

const files = ['shared', 'functions', 'infra'].flatMap(sourceFiles)
const parsed = files.map((file) =>
  ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true),
)

/** Every name the code declares as something callable or readable: functions, methods, members, variables. */
function declaredNames(): Set<string> {
  const names = new Set<string>()
  const visit = (node: ts.Node): void => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isMethodSignature(node) ||
        ts.isPropertySignature(node) ||
        ts.isPropertyDeclaration(node) ||
        ts.isPropertyAssignment(node) ||
        ts.isVariableDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    ) {
      names.add(node.name.text)
    }
    ts.forEachChild(node, visit)
  }
  for (const source of parsed) visit(source)
  return names
}

/** `name()` citations in the literal text of `new ...Error(...)` messages, not in their `${}` code. */
function citedFunctions(): { where: string; name: string }[] {
  const cited: { where: string; name: string }[] = []
  for (const source of parsed) {
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && /Error$/.test(node.expression.getText(source))) {
        const texts: string[] = []
        const collect = (part: ts.Node): void => {
          if (ts.isStringLiteral(part) || ts.isNoSubstitutionTemplateLiteral(part)) {
            texts.push(part.text)
          } else if (ts.isTemplateExpression(part)) {
            texts.push(part.head.text, ...part.templateSpans.map((span) => span.literal.text))
            for (const span of part.templateSpans) collect(span.expression)
          } else ts.forEachChild(part, collect)
        }
        for (const argument of node.arguments ?? []) collect(argument)
        for (const text of texts) {
          for (const match of text.matchAll(/([A-Za-z_][\w.]*)\(\)/g)) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
            const name = (match[1] as string).split('.').at(-1) as string
            cited.push({ where: `${relative(root, source.fileName)}:${line + 1}`, name })
          }
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return cited
}

describe('error messages', () => {
  it('cite only functions that exist (no "see agentEnvironment()" for a function nobody wrote)', () => {
    const declared = declaredNames()
    const cited = citedFunctions()
    expect(cited.length).toBeGreaterThan(3)
    expect(cited.filter(({ name }) => !declared.has(name))).toEqual([])
  })
})
