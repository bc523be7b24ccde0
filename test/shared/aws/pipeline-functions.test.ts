import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { QUEUE_FUNCTIONS } from '../../../shared/aws/pipeline-functions.ts'
import { repoRoot } from '../../support/repo-root.ts'

describe('the Lambda entry point', () => {
  it('exports a handler for every queue function of the table, under the name the construct deploys', () => {
    // Read as text: importing it needs Lambda's awslambda global.
    const source = readFileSync(join(repoRoot, 'functions/lambda.ts'), 'utf8')
    const exported = [...source.matchAll(/^export const (\w+) =/gm)].map((match) => match[1])
    for (const spec of Object.values(QUEUE_FUNCTIONS)) expect(exported).toContain(spec.handler)
    expect(exported).toContain('http')
    expect(exported).toContain('router')
  })
})
