import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation'
import {
  VERIFY_OUTPUT_DESCRIPTION,
  type VerifyConfig,
  verifyConfigSchema,
} from '../../../shared/aws/verify-output.ts'
import { VerifyError } from './verify-error.ts'

/** A stack output as DescribeStacks returns it. */
interface StackOutput {
  OutputKey?: string
  OutputValue?: string
  Description?: string
}

/**
 * The agent verify checks, from a stack's outputs: the one output each
 * A2Agent marks as its verify configuration. With several agents in the
 * stack, `agent` (a construct path, with or without the stack's name, or an
 * output key) picks one; without it the error lists them.
 * @internal Exported for its test (knip --production).
 */
export function pickVerifyOutput(
  stackName: string,
  outputs: readonly StackOutput[],
  agent?: string,
): VerifyConfig {
  const candidates = outputs
    .filter((output) => output.Description === VERIFY_OUTPUT_DESCRIPTION)
    .map((output) => ({ key: output.OutputKey ?? '', config: parseConfig(stackName, output) }))
  if (candidates.length === 0) {
    throw new VerifyError(
      'NO_VERIFY_OUTPUT',
      `Stack ${stackName} has no a2-aws verify output: deploy it with this version of a2-aws (each A2Agent adds one), or give --url`,
    )
  }
  const listed = candidates.map(({ key, config }) => `${config.path} (output ${key})`).join(', ')
  if (agent === undefined) {
    if (candidates.length === 1) return (candidates[0] as { config: VerifyConfig }).config
    throw new VerifyError(
      'AGENT_REQUIRED',
      `Stack ${stackName} holds ${candidates.length} agents; pick one with --agent: ${listed}`,
    )
  }
  const picked = candidates.find(
    ({ key, config }) =>
      key === agent || config.path === agent || config.path.split('/').slice(1).join('/') === agent,
  )
  if (!picked) {
    throw new VerifyError('AGENT_NOT_FOUND', `Stack ${stackName} has no agent ${agent}: ${listed}`)
  }
  return picked.config
}

/** Reads the stack's outputs (CloudFormation DescribeStacks) and picks the agent. */
export async function readStackTarget(
  cloudFormation: Pick<CloudFormationClient, 'send'>,
  stackName: string,
  agent?: string,
): Promise<VerifyConfig> {
  let outputs: StackOutput[]
  try {
    const { Stacks = [] } = await cloudFormation.send(
      new DescribeStacksCommand({ StackName: stackName }),
    )
    outputs = Stacks[0]?.Outputs ?? []
  } catch (error) {
    // CloudFormation answers a missing stack with a ValidationError.
    if ((error as { name?: string }).name === 'ValidationError') {
      throw new VerifyError(
        'STACK_NOT_FOUND',
        `No stack ${stackName} in this account and region: ${(error as Error).message}`,
        { cause: error },
      )
    }
    throw error
  }
  return pickVerifyOutput(stackName, outputs, agent)
}

function parseConfig(stackName: string, output: StackOutput): VerifyConfig {
  let value: unknown
  try {
    value = JSON.parse(output.OutputValue ?? '')
  } catch (error) {
    throw badOutput(stackName, output, 'not JSON', error)
  }
  const parsed = verifyConfigSchema.safeParse(value)
  if (!parsed.success) throw badOutput(stackName, output, parsed.error.message)
  return parsed.data
}

function badOutput(stackName: string, output: StackOutput, why: string, cause?: unknown) {
  return new VerifyError(
    'BAD_VERIFY_OUTPUT',
    `Output ${output.OutputKey} of stack ${stackName} is not a verify configuration (${why})`,
    cause === undefined ? undefined : { cause },
  )
}
