import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const CFN_LINT_INSTALL_HINT =
  'The template tests run cfn-lint (Python). Install it with: pip install cfn-lint'

/**
 * Runs cfn-lint (AWS's CloudFormation linter: resource schemas, property
 * values, dependencies) on synthesized templates, in one run since its start
 * takes seconds, and returns each template's findings as `CODE message`
 * lines: what moto and the CDK's own checks do not see.
 */
export function cfnLint(...templates: unknown[]): string[][] {
  const folder = mkdtempSync(join(tmpdir(), 'a2-cfn-lint-'))
  const files = templates.map((template, n) => {
    const file = join(folder, `template-${n}.json`)
    writeFileSync(file, JSON.stringify(template))
    return file
  })
  let output = ''
  try {
    execFileSync('cfn-lint', ['--format', 'parseable', ...files], { encoding: 'utf8' })
  } catch (error) {
    const failure = error as { code?: string; stdout?: string }
    if (failure.code === 'ENOENT') throw new Error(CFN_LINT_INSTALL_HINT)
    output = failure.stdout ?? ''
  }
  // Parseable lines: file:line:column:endline:endcolumn:CODE:message
  const lines = output.split('\n').filter(Boolean)
  return files.map((file) =>
    lines
      .filter((line) => line.startsWith(`${file}:`))
      .map((line) => {
        const [code, ...message] = line
          .slice(file.length + 1)
          .split(':')
          .slice(4)
        return `${code} ${message.join(':')}`
      }),
  )
}
