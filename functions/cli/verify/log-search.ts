import { type CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs'
import type { LogRecord } from './judge-closed.ts'

/** Finds a log group's JSON lines that match a CloudWatch Logs filter pattern, from `startTime` on. */
export type LogSearch = (filterPattern: string, startTime: number) => Promise<LogRecord[]>

/** Result pages read at most per search: verify's patterns match a handful of lines. */
const MAX_PAGES = 10

/** `LogSearch` on CloudWatch Logs (FilterLogEvents); lines that are not JSON are left out. */
export function cloudWatchLogSearch(
  client: Pick<CloudWatchLogsClient, 'send'>,
  logGroupName: string,
): LogSearch {
  return async (filterPattern, startTime) => {
    const records: LogRecord[] = []
    let nextToken: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await client.send(
        new FilterLogEventsCommand({
          logGroupName,
          filterPattern,
          startTime,
          ...(nextToken ? { nextToken } : {}),
        }),
      )
      for (const event of answer.events ?? []) {
        try {
          const record = JSON.parse(event.message ?? '') as unknown
          if (typeof record === 'object' && record !== null) records.push(record as LogRecord)
        } catch {
          // A plain-text line (a runtime crash, say): not one verify looks for.
        }
      }
      nextToken = answer.nextToken
      if (!nextToken) break
    }
    return records
  }
}

/** A JSON filter pattern matching `field` equal to `value` (`{ $.a.b = "v" }`). */
export function jsonEquals(field: string, value: string): string {
  return `{ $.${field} = ${JSON.stringify(value)} }`
}
