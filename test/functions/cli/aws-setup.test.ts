import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../../support/repo-root.ts'

/**
 * The a2-aws command in the shell of a machine with no AWS setup at all: no
 * region, no credentials, no profile files, no instance metadata to ask.
 */
function bare(...args: string[]) {
  return promisify(execFile)(process.execPath, [join(repoRoot, 'functions/cli/cli.ts'), ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: join(repoRoot, 'no-such-home'),
      AWS_CONFIG_FILE: join(repoRoot, 'no-such-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(repoRoot, 'no-such-aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  )
}

const NO_REGION =
  'no AWS region: pass --region <region> (us-east-1, say), set AWS_REGION, or use a profile that has one (AWS_PROFILE=<name>, its region in ~/.aws/config). The AWS SDK said: Region is missing'
const NO_CREDENTIALS =
  'no AWS credentials: use a profile (AWS_PROFILE=<name>; aws configure or aws sso login makes one) or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. The AWS SDK said: Could not load credentials from any providers'

describe.concurrent("a2-aws without an AWS setup names what to set, not only the SDK's words", () => {
  it('verify --stack with no region: --region, AWS_REGION or a profile; exit 2', async () => {
    const run = await bare('verify', '--stack', 'Support')
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(`a2-aws verify: ${NO_REGION}`)
  }, 60_000)

  it('verify --stack --region with no credentials: a profile or the key variables; exit 2', async () => {
    const run = await bare('verify', '--stack', 'Support', '--region', 'us-east-1')
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(`a2-aws verify: ${NO_CREDENTIALS}`)
  }, 60_000)

  it('inspect --table and export --table say the same, in one line, without a stack', async () => {
    const inspect = await bare('inspect', 's1', '--table', 'a2-events')
    expect(inspect.code).toBe(2)
    expect(inspect.stderr.trim()).toBe(`a2-aws inspect: Cannot read table a2-events: ${NO_REGION}`)
    const exported = await bare('export', 's1', '--table', 'a2-events', '--region', 'eu-west-1')
    expect(exported.code).toBe(2)
    expect(exported.stderr.trim()).toBe(`a2-aws export: ${NO_CREDENTIALS}`)
  }, 60_000)
})
