import type { z } from 'zod'

/**
 * Reads a queue message body: JSON, then its schema. A body that is not
 * JSON, or does not match, goes to `refuse` with the first problem in the
 * schema's own words: top-level messages name their field themselves
 * (`"sessionId" must be a non-empty string`), nested ones get their place
 * (`events[3].type must be a non-empty string`).
 */
export function parseQueueMessage<Schema extends z.ZodType>(
  body: string,
  schema: Schema,
  refuse: (why: string, cause?: unknown) => never,
  notJson: string,
): z.output<Schema> {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (error) {
    return refuse(notJson, error)
  }
  const result = schema.safeParse(value)
  if (result.success) return result.data
  return refuse(describeIssue(result.error.issues[0] as z.core.$ZodIssue))
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.path.length <= 1) return issue.message
  const at = issue.path
    .map((key, position) =>
      typeof key === 'number' ? `[${key}]` : position === 0 ? String(key) : `.${String(key)}`,
    )
    .join('')
  return `${at} ${issue.message}`
}
