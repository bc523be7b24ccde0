import { Logger } from '@aws-lambda-powertools/logger'
import type { Context } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import type { PipelineHandlers } from '../../../../shared/aws/lambda/handlers-by-function.ts'
import { withLambdaContext } from '../../../../shared/aws/lambda/lambda-context.ts'

const context = {
  functionName: 'a2-generation',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:a2-generation',
  memoryLimitInMB: '1024',
  awsRequestId: 'request-7',
  getRemainingTimeInMillis: () => 60_000,
} as Context

describe('the Lambda entry points', () => {
  it("tag every log line of an invocation with its function and request ID (Powertools' addContext)", async () => {
    const lines: Record<string, unknown>[] = []
    const logger = new Logger({ serviceName: 'a2' })
    // Powertools writes each line as JSON to its console.
    ;(logger as unknown as { console: Pick<Console, 'info'> }).console = {
      info: (line: string) => void lines.push(JSON.parse(line)),
    }
    const seen: string[] = []
    const handlers = {
      generation: async () => {
        logger.info('working')
        seen.push('generation')
        return { batchItemFailures: [] }
      },
      http: async (_event: unknown, _stream: unknown, given: Context) => {
        logger.info('streaming')
        seen.push(`http ${given.awsRequestId}`)
      },
    } as unknown as PipelineHandlers
    const logged = withLambdaContext(logger, handlers)
    await logged.generation({ Records: [] }, context)
    await logged.http({} as never, {} as never, { ...context, awsRequestId: 'request-8' })
    expect(seen).toEqual(['generation', 'http request-8'])
    expect(lines).toEqual([
      expect.objectContaining({
        message: 'working',
        function_name: 'a2-generation',
        function_request_id: 'request-7',
      }),
      expect.objectContaining({ message: 'streaming', function_request_id: 'request-8' }),
    ])
  })
})
