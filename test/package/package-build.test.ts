import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { repoRoot as root } from '../support/repo-root.ts'
import { packageName, runtimeImports } from '../support/runtime-imports.ts'

const parsed = ts.getParsedCommandLineOfConfigFile(
  join(root, 'tsconfig.build.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(String(diagnostic.messageText))
    },
  },
)
if (!parsed) throw new Error('tsconfig.build.json did not parse')
const built = new Set(parsed.fileNames.map((file) => relative(root, file)))
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { 'a2-source'?: string; default?: string }>
  bin: Record<string, string>
  scripts: Record<string, string>
  files: string[]
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
}

describe('the published build (npm run build)', () => {
  it('compiles the source of every entry point to the path package.json exports', () => {
    for (const [entry, target] of Object.entries(packageJson.exports)) {
      if (typeof target === 'string') continue
      const source = target['a2-source']?.replace(/^\.\//, '') as string
      expect(built, entry).toContain(source)
      expect(target.default).toBe(`./dist/${source.replace(/\.ts$/, '.js')}`)
    }
    expect(packageJson.files).toContain('dist')
  })

  it("ships the Lambda entry point the A2Agent construct bundles, without the repo's example app", () => {
    // infra/a2-agent.ts looks for ../functions/lambda.js next to dist/infra.
    expect(built).toContain('functions/lambda.ts')
    expect(built).toContain('functions/agent-module.d.ts')
    expect([...built].filter((file) => file.startsWith('functions/example'))).toEqual([])
    expect(built).not.toContain('infra/app.ts')
    expect(built).not.toContain('infra/example-app.ts')
    expect(
      [...built].filter((file) => file.startsWith('test/') || file.endsWith('.test.ts')),
    ).toEqual([])
  })

  it('ships the a2-aws command (npx a2-aws verify, inspect): its entry point and the modules it imports', () => {
    expect(packageJson.bin).toEqual({ 'a2-aws': 'dist/functions/cli/cli.js' })
    expect(built).toContain('functions/cli/cli.ts')
    for (const file of ['run-verify.ts', 'verify-command.ts', 'judge-streaming.ts']) {
      expect(built).toContain(`functions/cli/verify/${file}`)
    }
    for (const file of ['inspect-command.ts', 'session-source.ts', 'render-text.ts']) {
      expect(built).toContain(`functions/cli/inspect/${file}`)
    }
    // npm links the bin as an executable script: it needs its interpreter line.
    expect(readFileSync(join(root, 'functions/cli/cli.ts'), 'utf8').split('\n')[0]).toBe(
      '#!/usr/bin/env node',
    )
    expect(packageJson.scripts.verify).toBe('node functions/cli/cli.ts verify')
  })

  it("ships no dev tool: every package the built code loads is one of the package's dependencies or peers", () => {
    // The construct's esbuild aliases this specifier to the user's agent module.
    const provided = new Set([
      ...Object.keys(packageJson.dependencies),
      ...Object.keys(packageJson.peerDependencies),
      'a2-aws-agent-module',
    ])
    const missing: string[] = []
    for (const file of built) {
      if (file.endsWith('.d.ts')) continue
      const { static: loaded, dynamic } = runtimeImports(join(root, file))
      for (const specifier of [...loaded, ...dynamic]) {
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue
        if (!provided.has(packageName(specifier))) missing.push(`${file}: ${specifier}`)
      }
    }
    expect(missing).toEqual([])
    // The local runner (`npm run local`) and the moto helper are the repo's dev tools.
    expect([...built].filter((file) => file.includes('local-runner'))).toEqual([])
  })
})
