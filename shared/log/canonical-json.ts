/**
 * JSON with object keys sorted, so two payloads that differ only in key order
 * compare equal. Used to tell an exact replay from a reused ID.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner
    const sorted: Record<string, unknown> = {}
    for (const key of Object.keys(inner).sort())
      sorted[key] = (inner as Record<string, unknown>)[key]
    return sorted
  })
}

/**
 * The part of an event that must match for a resubmission to be a replay:
 * its type, payload and schema version. Version 1 is left out, so the
 * content of an event written before versions is what it was.
 */
export function eventContent(event: { type: string; payload: unknown; version?: number }): string {
  const { type, payload, version } = event
  return canonicalJson(
    version !== undefined && version > 1 ? { type, payload, version } : { type, payload },
  )
}
