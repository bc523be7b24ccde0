import * as iam from 'aws-cdk-lib/aws-iam'
import type * as logs from 'aws-cdk-lib/aws-logs'
import type { Construct } from 'constructs'

/**
 * A function's execution role that may write only its own log group:
 * `logs:CreateLogStream` and `logs:PutLogEvents` on that group's streams.
 * The role a function makes for itself carries the AWS managed
 * AWSLambdaBasicExecutionRole, which allows `logs:CreateLogGroup`,
 * `logs:CreateLogStream` and `logs:PutLogEvents` on every resource (`*`):
 * any log group of the account. The function's log group is made by the
 * stack, so it needs no CreateLogGroup.
 *
 * @example
 * const logGroup = new logs.LogGroup(scope, 'HttpFunctionLogs', {})
 * new lambda.Function(scope, 'HttpFunction', { role: functionRole(scope, 'HttpFunctionRole', logGroup), logGroup, ... })
 */
export function functionRole(scope: Construct, id: string, logGroup: logs.ILogGroup): iam.Role {
  const role = new iam.Role(scope, id, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
  })
  // The group's ARN (`arn:...:log-group:<name>:*`) covers its log streams.
  logGroup.grantWrite(role)
  return role
}
