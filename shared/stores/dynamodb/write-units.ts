import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb'

// DynamoDB's item size: attribute names plus values
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8')

function numberBytes(value: string): number {
  const digits = value
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '')
  return Math.ceil(digits.length / 2) + 1
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S)
  if (value.N !== undefined) return numberBytes(value.N)
  if (value.B !== undefined) return value.B.byteLength
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1
  if (value.SS) return value.SS.reduce((sum, s) => sum + utf8(s), 0)
  if (value.NS) return value.NS.reduce((sum, n) => sum + numberBytes(n), 0)
  if (value.BS) return value.BS.reduce((sum, b) => sum + b.byteLength, 0)
  if (value.L) return 3 + value.L.reduce((sum, v) => sum + 1 + valueBytes(v), 0)
  if (value.M)
    return 3 + Object.entries(value.M).reduce((sum, [k, v]) => sum + 1 + utf8(k) + valueBytes(v), 0)
  return 0
}

/**
 * An item's size as DynamoDB bills it: every attribute's name and value, in bytes.
 * @internal Exported for its test and the benchmarks (knip --production).
 */
export function itemBytes(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + utf8(name) + valueBytes(value),
    0,
  )
}

/**
 * The write units a committed `TransactWriteItems` of an append costs,
 * estimated as the benchmark counts them (test/bench/aws-requests.bench.ts):
 * a put is billed on the item it writes, 1 unit per KB begun; the updates
 * and condition checks of an append touch its small items (the session
 * head, a cursor, a claim: a few dozen bytes), 1 unit each; a transaction
 * bills every item twice. Puts here never replace an item (they are
 * conditioned on its absence), so the new item is the larger one.
 */
export function transactionWriteUnits(items: readonly TransactWriteItem[]): number {
  return items.reduce((sum, item) => {
    const bytes = item.Put ? itemBytes(item.Put.Item ?? {}) : 0
    return sum + 2 * Math.max(1, Math.ceil(bytes / 1024))
  }, 0)
}

/** The write units of a single `PutItem` of `item`: 1 per KB begun, at least 1. */
export function putWriteUnits(item: Record<string, AttributeValue>): number {
  return Math.max(1, Math.ceil(itemBytes(item) / 1024))
}
