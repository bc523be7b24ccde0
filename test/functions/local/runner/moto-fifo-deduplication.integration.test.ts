import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs'
import { beforeAll, describe, expect, it } from 'vitest'
import { awsClientConfig, resetMotoForSuite } from '../../../support/aws.ts'

// The emulator's FIFO deduplication, as SQS's: a copy with the same
// deduplication ID sent within five minutes is accepted and not delivered,
// also after the first copy was received and deleted (the router's copy of a
// wake-up the fast path sent seconds earlier). moto compares only with the
// messages still queued; moto_main.py keeps the five minutes.
const sqs = new SQSClient(awsClientConfig())
let queueUrl = ''

beforeAll(async () => {
  await resetMotoForSuite()
  const created = await sqs.send(
    new CreateQueueCommand({
      QueueName: `a2-dedup-${Date.now().toString(36)}.fifo`,
      Attributes: {
        FifoQueue: 'true',
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
      },
    }),
  )
  queueUrl = created.QueueUrl as string
})

const send = (group: string, id: string, body: string) =>
  sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      MessageGroupId: group,
      MessageDeduplicationId: id,
    }),
  )

async function receiveAll(): Promise<string[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  )
  for (const message of Messages) {
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
    )
  }
  return Messages.map((message) => message.Body as string)
}

describe('FIFO deduplication on the emulator', () => {
  it('does not deliver a copy sent after the first was received and deleted', async () => {
    await send('s1', 'wake-1', 'first')
    expect(await receiveAll()).toEqual(['first'])
    await send('s1', 'wake-1', 'second')
    expect(await receiveAll()).toEqual([])
  })

  it('scopes deduplication to the message group on a high-throughput queue', async () => {
    await send('s2', 'wake-2', 'one group')
    await send('s3', 'wake-2', 'another group')
    expect((await receiveAll()).sort()).toEqual(['another group', 'one group'])
  })
})
