import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import ts from 'typescript'

/**
 * The module specifiers a source file loads when it runs: static imports and
 * re-exports, and `import()` calls. `import type` and `export type` are
 * erased, so they load nothing; `import { type X }` is kept as an import
 * under `verbatimModuleSyntax`, so it counts.
 */
export function runtimeImports(file: string): { static: string[]; dynamic: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
  const found = { static: [] as string[], dynamic: [] as string[] }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      found.static.push((node.moduleSpecifier as ts.StringLiteral).text)
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier) {
      found.static.push((node.moduleSpecifier as ts.StringLiteral).text)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.dynamic.push(node.arguments[0].text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/**
 * Every package an entry point loads when it is imported: the bare
 * specifiers of its static import graph (relative imports followed,
 * `import()` calls not, since they load only when called).
 */
export function packagesLoadedBy(entry: string): Set<string> {
  const packages = new Set<string>()
  const seen = new Set<string>()
  const walk = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
    for (const specifier of runtimeImports(file).static) {
      if (specifier.startsWith('.')) walk(resolve(dirname(file), specifier))
      else packages.add(specifier)
    }
  }
  walk(resolve(entry))
  return packages
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string)
}
