import type { Resource } from './template.ts'

/**
 * A small IAM evaluator for template tests: what a function's role allows,
 * checked against the requests its code path really made (recorded on moto,
 * which checks no IAM). It knows what our templates use: Allow statements,
 * actions with `*` wildcards, resources as CloudFormation references, and
 * `StringEquals` / `ForAnyValue:StringEquals` conditions. Anything else in
 * a statement makes it allow nothing, so a test errs on the side of denial.
 */
export interface Statement {
  Effect: string
  Action: string | string[]
  Resource: unknown
  Condition?: Record<string, Record<string, unknown>>
}

/** One authorization a request needs: the IAM action, its resource, and its condition context. */
export interface Authorization {
  action: string
  /** The resource as `render` writes a template's (references as `<Id.Attr>`, `<Ref Id>`). */
  resource: string
  context?: Record<string, string>
}

/** A template value as a string, references as `<Id.Attr>` and `<Ref Id>`, joins joined. */
export function render(value: unknown): string {
  if (typeof value === 'string') return value
  const node = value as Record<string, unknown>
  if ('Ref' in node) return `<Ref ${node.Ref}>`
  if ('Fn::GetAtt' in node) return `<${(node['Fn::GetAtt'] as string[]).join('.')}>`
  if ('Fn::Join' in node) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]]
    return parts.map(render).join(separator)
  }
  return JSON.stringify(value)
}

/** The statements of every `AWS::IAM::Policy` attached to a role. */
export function roleStatements(resources: Record<string, Resource>, roleId: string): Statement[] {
  return Object.values(resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' &&
        (resource.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
}

const glob = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )

function conditionsHold(
  condition: Statement['Condition'],
  context: Record<string, string>,
): boolean {
  for (const [operator, keys] of Object.entries(condition ?? {})) {
    if (operator !== 'StringEquals' && operator !== 'ForAnyValue:StringEquals') return false
    for (const [key, expected] of Object.entries(keys)) {
      const actual = context[key]
      if (actual === undefined || ![expected].flat().includes(actual)) return false
    }
  }
  return true
}

/** Whether any Allow statement grants the authorization. */
function allows(statements: readonly Statement[], needed: Authorization): boolean {
  return statements.some(
    (statement) =>
      statement.Effect === 'Allow' &&
      [statement.Action].flat().some((action) => glob(action).test(needed.action)) &&
      [statement.Resource]
        .flat()
        .some((resource) => glob(render(resource)).test(needed.resource)) &&
      conditionsHold(statement.Condition, needed.context ?? {}),
  )
}

/** A request a client sent: its service, its command's name, its input. */
export interface SentRequest {
  service: 'dynamodb' | 'sqs' | 'scheduler'
  command: string
  input: Record<string, unknown>
}

/**
 * Wraps a client so every request it sends is recorded (and then sent).
 *
 * @example
 * const sent: SentRequest[] = []
 * const client = recording(new DynamoDBClient(config), 'dynamodb', sent)
 */
export function recording<C extends { send: (...args: never[]) => unknown }>(
  client: C,
  service: SentRequest['service'],
  sent: SentRequest[],
): C {
  return Object.assign(Object.create(client) as C, {
    send: (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({
        service,
        command: command.constructor.name.replace(/Command$/, ''),
        input: command.input,
      })
      return (client.send as (command: unknown) => unknown)(command)
    },
  })
}

/** Where the requests' targets are in the template, rendered as `render` does. */
export interface ResourceNames {
  /** A table's ARN, by the name the request used. */
  table: (tableName: string) => string
  /** A queue's ARN, by its URL. */
  queue?: (queueUrl: string) => string
  /** A schedule's ARN in a group, by the group's and the schedule's names. */
  schedule?: (groupName: string, name: string) => string
}

/**
 * The authorizations each request needs, by the services' rules: each action
 * of a `TransactWriteItems` as its single-item action with
 * `dynamodb:EnclosingOperation` ("Using IAM with DynamoDB transactions"), a
 * `SendMessageBatch` as `sqs:SendMessage`, `ListSchedules` on `*` (it takes
 * no resource), the rest as the operation's own action.
 */
export function authorizationsOf(
  requests: readonly SentRequest[],
  names: ResourceNames,
): Authorization[] {
  const needed: Authorization[] = []
  for (const { service, command, input } of requests) {
    if (service === 'dynamodb') {
      if (command === 'TransactWriteItems') {
        for (const item of input.TransactItems as Record<string, { TableName: string }>[]) {
          const [kind, action] = Object.entries(item)[0] as [string, { TableName: string }]
          const single = {
            Put: 'PutItem',
            Update: 'UpdateItem',
            Delete: 'DeleteItem',
            ConditionCheck: 'ConditionCheckItem',
          }[kind]
          needed.push({
            action: `dynamodb:${single}`,
            resource: names.table(action.TableName),
            context: { 'dynamodb:EnclosingOperation': 'TransactWriteItems' },
          })
        }
      } else {
        const tables =
          command === 'BatchGetItem' || command === 'BatchWriteItem'
            ? Object.keys(input.RequestItems as object)
            : [input.TableName as string]
        for (const table of tables)
          needed.push({ action: `dynamodb:${command}`, resource: names.table(table) })
      }
    } else if (service === 'sqs') {
      const queue = names.queue?.(input.QueueUrl as string) ?? String(input.QueueUrl)
      const action = command.startsWith('SendMessage')
        ? 'SendMessage'
        : command.replace(/Batch$/, '')
      needed.push({ action: `sqs:${action}`, resource: queue })
    } else {
      const group = (input.GroupName as string | undefined) ?? 'default'
      needed.push({
        action: `scheduler:${command}`,
        resource:
          command === 'ListSchedules'
            ? '*'
            : (names.schedule?.(group, input.Name as string) ?? `${group}/${input.Name}`),
      })
    }
  }
  return needed
}

/** The authorizations the statements do not grant, as `action on resource`. */
export function denied(statements: readonly Statement[], needed: readonly Authorization[]) {
  return [
    ...new Set(
      needed
        .filter((authorization) => !allows(statements, authorization))
        .map(
          ({ action, resource, context }) =>
            `${action} on ${resource}${context ? ` (${JSON.stringify(context)})` : ''}`,
        ),
    ),
  ]
}
