// The AI SDK merges streamed message metadata with its internal `mergeObjects`
// (ai/src/util/merge-objects.ts), which `ai` does not export. Same rules: deep
// merge of plain objects, `undefined` overrides skipped, prototype keys ignored.

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  !(value instanceof RegExp)

export function mergeObjects(base: unknown, overrides: unknown): unknown {
  if (base === undefined && overrides === undefined) return undefined
  if (base === undefined) return overrides
  if (overrides === undefined) return base
  const result: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  for (const key in overrides as Record<string, unknown>) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue
    if (!Object.hasOwn(overrides as object, key)) continue
    const overridesValue = (overrides as Record<string, unknown>)[key]
    if (overridesValue === undefined) continue
    const baseValue = key in (base as object) ? (base as Record<string, unknown>)[key] : undefined
    result[key] =
      isPlainObject(overridesValue) && isPlainObject(baseValue)
        ? mergeObjects(baseValue, overridesValue)
        : overridesValue
  }
  return result
}
