import { Duration, RemovalPolicy } from 'aws-cdk-lib'
import * as apigateway from 'aws-cdk-lib/aws-apigateway'
import * as logs from 'aws-cdk-lib/aws-logs'
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import type { Construct } from 'constructs'
import type { A2AgentProps } from './a2-agent-props.ts'
import { type AgentFunctions, STREAM_TIMEOUT } from './agent-functions.ts'
import { agentUrlOutput } from './agent-url-output.ts'
import { apiAuth } from './api-auth.ts'

/** The stage's default throttle: steady requests per second, and the burst above it. */
const DEFAULT_THROTTLE = { rateLimit: 100, burstLimit: 200 }

/**
 * The REST API: `/agent` with GET on the stream function and POST on the
 * http function, both response-streaming, behind the agent's auth; access
 * logs, error-only execution logs and a stage throttle. Adds the endpoint's
 * output (`AgentUrl` for an agent named `Agent`).
 */
export function agentApi(
  scope: Construct,
  props: Pick<A2AgentProps, 'throttle' | 'apiGatewayCloudWatchRole' | 'stageName' | 'auth'>,
  functions: Pick<AgentFunctions, 'http' | 'stream'>,
): { api: apigateway.RestApi; url: string; sessionKey?: secretsmanager.ISecret } {
  const accessLogs = new logs.LogGroup(scope, 'ApiAccessLogs', {
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  })
  const throttle = props.throttle ?? DEFAULT_THROTTLE
  const stageName = props.stageName ?? 'prod'
  const api = new apigateway.RestApi(scope, 'Api', {
    description: 'a2 agent: GET streams a session as SSE, POST pushes events',
    endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
    // Stage logging needs the account's API Gateway CloudWatch role
    // (AWS::ApiGateway::Account); without one the stage fails to create and
    // the stack rolls back in a fresh account. The role is retained when the
    // stack goes, since other APIs in the account may log through it.
    cloudWatchRole: props.apiGatewayCloudWatchRole ?? true,
    deployOptions: {
      stageName,
      accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
      accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
      // Execution logs for errors only: no request or response bodies.
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      throttlingRateLimit: throttle.rateLimit,
      throttlingBurstLimit: throttle.burstLimit,
    },
  })
  // API Gateway writes the stage's execution logs (loggingLevel ERROR) to
  // `API-Gateway-Execution-Logs_{restApiId}/{stage}`, a log group it creates
  // itself on the first log, with no retention, which outlives the stack
  // ("Set up CloudWatch logging for REST APIs in API Gateway", API Gateway
  // developer guide). Created here first, with the retention and removal of
  // the construct's other log groups; the stage depends on it, so it exists
  // before API Gateway could make its own, and goes after the stage.
  const executionLogs = new logs.LogGroup(scope, 'ApiExecutionLogs', {
    logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${stageName}`,
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  })
  api.deploymentStage.node.addDependency(executionLogs)
  const auth = apiAuth(scope, props.auth, [functions.http, functions.stream])
  const resource = api.root.addResource('agent')
  resource.addMethod(
    'GET',
    new apigateway.LambdaIntegration(functions.stream, {
      responseTransferMode: apigateway.ResponseTransferMode.STREAM,
      timeout: STREAM_TIMEOUT,
    }),
    auth.methodOptions,
  )
  resource.addMethod(
    'POST',
    new apigateway.LambdaIntegration(functions.http, {
      responseTransferMode: apigateway.ResponseTransferMode.STREAM,
      timeout: Duration.seconds(29),
    }),
    auth.methodOptions,
  )
  const url = api.urlForPath(resource.path)
  agentUrlOutput(scope, url)

  return { api, url, ...(auth.sessionKey ? { sessionKey: auth.sessionKey } : {}) }
}
