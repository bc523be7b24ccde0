import { describe, expect, it } from 'vitest'
import { scheduleName } from '../../../shared/aws/eventbridge-scheduler.ts'
import { sendInputs } from '../../../shared/aws/ingress-message.ts'
import { wakeUpMessage } from '../../../shared/aws/wake-up-message.ts'
import { idempotentId } from '../../../shared/model/ids/idempotent-id.ts'
import { derivedId } from '../../../shared/model/ids/ids.ts'
import { fakeClient } from '../../support/fake-clients.ts'

// Derived IDs are persisted (event IDs, schedule names) or seen by AWS (SQS
// group and deduplication IDs, which must match between the fast path and the
// stream router across a deploy). Each keeps its exact format: these values
// were computed before the hashes were brought into one helper. A wake-up's
// deduplication ID changed once since, when it took the news's life (issue
// 37): for the minutes a deploy mixes the two, a wake-up is delivered twice.
describe('IDs derived by hashing keep their format', () => {
  it('SQS group and deduplication IDs of a wake-up', () => {
    const message = wakeUpMessage({
      sessionId: 'séance',
      lane: 'tools',
      key: 'call-1',
      at: { life: 'k2Xq9wT4bZ1p', index: 7 },
    })
    expect(message.groupId).toBe(
      '#e15d22d182e00379e4e67e0afd2fcd67f6423736417c06f38043c8c7902e921b',
    )
    expect(message.deduplicationId).toBe(
      'e91a303bc9c67a5a4e8cd0990ade075c9f1500754805b097fd83b7d2bc8dd2be',
    )
  })

  it('SQS group and deduplication IDs of an ingress message', async () => {
    const sqs = fakeClient()
    await sendInputs({ client: sqs.client, queueUrl: 'q' }, 'séance', {
      id: 'e1',
      type: 'app.note',
      payload: {},
    })
    expect(sqs.sent[0]?.input.MessageGroupId).toBe(
      '#3795e14e1453e36a840eab867f23eae32578c036fb8f5c5239369b8994369829',
    )
    expect(sqs.sent[0]?.input.MessageDeduplicationId).toBe(
      'dd5b495b172a90401711b9f23b613289bcba8ca98d937f5f1aa87c5e29eecb62',
    )
  })

  it("a timer's schedule name: the session's digest (what cancel lists by), then the timer's", () => {
    expect(scheduleName({ sessionId: 's1', name: 'reminder' })).toBe(
      'a2-90afadf3c4de0eae96e40b6ed96adc-c7a40fad3424b8f687ce8c2b9b0bf4',
    )
  })

  it('idempotentId() and a derived ID too long to keep whole', () => {
    expect(idempotentId('support-desk', 's1', 'evt-9')).toBe('id-qnzz7tgiflgf_a3tT0kPwWEPPWk1GPUz')
    expect(derivedId('request', 'x'.repeat(300), 2)).toBe('a2.ai:request:#6vvf79th6j6kwflldlgu')
  })
})
