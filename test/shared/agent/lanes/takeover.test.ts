import { memoryEventStore } from '../../../../shared/stores/memory/memory-event-store.ts'
import { describeTakeovers } from '../../../support/takeover-cases.ts'

// The takeover rule, on the memory store (DynamoDB: takeover.integration.test.ts).
describeTakeovers('the takeover rule on the memory store', () => memoryEventStore())
