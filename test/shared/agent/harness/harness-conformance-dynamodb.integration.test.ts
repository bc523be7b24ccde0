import { describe, expect, it } from 'vitest'
import { piHarness } from '../../../../shared/harness/pi/index.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import {
  describeHarnessConformance,
  gatewaySubject,
  scriptedSubject,
} from '../../../../shared/testing/index.ts'
import { acpSubject } from '../../../support/acp-subject.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'

// The harness suite on the DynamoDB store (the moto server): every harness's
// durable sequence through conditional transactions, claims and fences.
const table = eventLogTableForSuite()
const store = (now: () => number) =>
  dynamoDBEventStore({ client: table.client(), tableName: table.tableName(), now })

describeHarnessConformance(
  'ai-sdk on DynamoDB',
  scriptedSubject({ type: 'ai-sdk' }),
  { describe, it, expect },
  { store, timeoutMs: 30_000 },
)

// Pi's real pi-agent-core loop, its streamFn on a Gateway model ID that the
// real @ai-sdk/gateway provider sends to the Gateway double.
describeHarnessConformance(
  'pi through the Gateway double on DynamoDB',
  gatewaySubject(piHarness()),
  { describe, it, expect },
  { store, timeoutMs: 30_000 },
)

describeHarnessConformance(
  'fx over ACP on DynamoDB',
  acpSubject(),
  { describe, it, expect },
  { store, timeoutMs: 30_000 },
)
