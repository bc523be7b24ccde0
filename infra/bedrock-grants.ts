import { Stack } from 'aws-cdk-lib'
import * as iam from 'aws-cdk-lib/aws-iam'
import type { Construct } from 'constructs'
import { BEDROCK_PREFIX } from '../shared/agent/model-step/bedrock-model-id.ts'

/**
 * A model an agent invokes on Amazon Bedrock: a foundation model ID
 * (`anthropic.claude-sonnet-4-5-20250929-v1:0`), a cross-region inference
 * profile ID (`us.anthropic...`, `eu.`, `apac.`, `jp.`, `au.`, `us-gov.`,
 * `global.`), either with or without the `bedrock:` prefix the agent's model
 * ID carries; or a profile of another geography with the regions it routes
 * to.
 */
export type BedrockModel = string | { inferenceProfile: string; regions: readonly string[] }

/** The Bedrock runtime actions a model step needs: ConverseStream and Converse authorize as these. */
const BEDROCK_INVOKE_ACTIONS = [
  'bedrock:InvokeModel',
  'bedrock:InvokeModelWithResponseStream',
] as const

/**
 * The regions each geography's cross-region inference profiles may route
 * to, per "Supported Regions and models for inference profiles"
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html).
 * A profile's own list depends on its model and grows over time; this is the
 * geography's, so a region AWS adds for one model does not break the agent
 * with AccessDenied. It widens nothing: the grant on a foundation model is
 * conditioned on the profile (`bedrock:InferenceProfileArn`), and the
 * profile routes only where it routes.
 */
export const INFERENCE_PROFILE_REGIONS: Readonly<Record<string, readonly string[]>> = {
  us: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
  eu: [
    'eu-central-1',
    'eu-central-2',
    'eu-north-1',
    'eu-south-1',
    'eu-south-2',
    'eu-west-1',
    'eu-west-2',
    'eu-west-3',
  ],
  apac: [
    'ap-east-2',
    'ap-northeast-1',
    'ap-northeast-2',
    'ap-northeast-3',
    'ap-south-1',
    'ap-south-2',
    'ap-southeast-1',
    'ap-southeast-2',
    'ap-southeast-3',
    'ap-southeast-4',
    'ap-southeast-5',
    'ap-southeast-7',
    'me-central-1',
  ],
  jp: ['ap-northeast-1', 'ap-northeast-3'],
  au: ['ap-southeast-2', 'ap-southeast-4'],
  'us-gov': ['us-gov-east-1', 'us-gov-west-1'],
}

/**
 * The least-privilege statements that let a function invoke exactly these
 * models from the stack's region (the Lambda function's `AWS_REGION`, where
 * the AI SDK's Bedrock provider calls Bedrock):
 * - a foundation model: its ARN in the region;
 * - a geographic cross-region inference profile (`us.`, `eu.`, ...): the
 *   profile's ARN in this account and region, and the foundation model in
 *   the region and every region the geography routes to, only through that
 *   profile ("Geographic cross-Region inference", IAM policy requirements:
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/geographic-cross-region-inference.html;
 *   "Prerequisites for inference profiles":
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-prereq.html);
 * - a global profile (`global.`): the profile's ARN, and the foundation
 *   model in the region and as the region-less ARN
 *   (`arn:aws:bedrock:::foundation-model/...`) that stands for every
 *   commercial region, only through that profile ("Global cross-Region
 *   inference", IAM policy requirements:
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html).
 * Throws a `TypeError` for what it cannot grant exactly (an ARN, an empty ID).
 */
export function bedrockInvokeStatements(
  scope: Construct,
  models: readonly BedrockModel[],
): iam.PolicyStatement[] {
  const stack = Stack.of(scope)
  const actions = [...BEDROCK_INVOKE_ACTIONS]
  const foundationModelArn = (modelId: string, region: string) =>
    `arn:${stack.partition}:bedrock:${region}::foundation-model/${modelId}`
  const direct = new Set<string>()
  const throughProfiles: iam.PolicyStatement[] = []
  for (const entry of models) {
    const profile = inferenceProfileOf(entry)
    if (!profile) {
      direct.add(foundationModelArn(modelIdOf(entry as string), stack.region))
      continue
    }
    const profileArn = stack.formatArn({
      service: 'bedrock',
      resource: 'inference-profile',
      resourceName: profile.id,
    })
    direct.add(profileArn)
    const regions =
      profile.regions === 'global' ? [stack.region, ''] : [stack.region, ...profile.regions]
    throughProfiles.push(
      new iam.PolicyStatement({
        actions,
        resources: [...new Set(regions)].map((region) => foundationModelArn(profile.model, region)),
        conditions: { StringEquals: { 'bedrock:InferenceProfileArn': profileArn } },
      }),
    )
  }
  if (direct.size === 0) return []
  return [new iam.PolicyStatement({ actions, resources: [...direct] }), ...throughProfiles]
}

/** The IDs the generation function calls the models by (the `bedrock:` prefix off), for `npm run verify`. */
export function bedrockModelIds(models: readonly BedrockModel[]): string[] {
  return [
    ...new Set(
      models.map((entry) => modelIdOf(typeof entry === 'string' ? entry : entry.inferenceProfile)),
    ),
  ]
}

type Profile = { id: string; model: string; regions: readonly string[] | 'global' }

function inferenceProfileOf(entry: BedrockModel): Profile | undefined {
  if (typeof entry !== 'string') {
    const id = modelIdOf(entry.inferenceProfile)
    const dot = id.indexOf('.')
    if (dot <= 0 || entry.regions.length === 0) {
      throw new TypeError(
        `bedrockModels: ${JSON.stringify(entry)} needs an inference profile ID (<geography>.<model>) and the regions it routes to`,
      )
    }
    return { id, model: id.slice(dot + 1), regions: entry.regions }
  }
  const id = modelIdOf(entry)
  const geography = id.slice(0, Math.max(0, id.indexOf('.')))
  if (geography === 'global') return { id, model: id.slice('global.'.length), regions: 'global' }
  const regions = INFERENCE_PROFILE_REGIONS[geography]
  return regions ? { id, model: id.slice(geography.length + 1), regions } : undefined
}

function modelIdOf(entry: string): string {
  const id = entry.startsWith(BEDROCK_PREFIX) ? entry.slice(BEDROCK_PREFIX.length) : entry
  if (id.trim() === '' || id.startsWith('arn:') || /\s|\//.test(id)) {
    throw new TypeError(
      `bedrockModels: "${entry}" is not a Bedrock model or inference profile ID (e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0); for an application inference profile ARN, add the statements to functions.generation yourself`,
    )
  }
  return id
}
