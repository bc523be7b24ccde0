/**
 * The first place a value would not come back the same from the JSON a
 * snapshot stores, as a path and what is there, or undefined when it
 * would. A property set to `undefined` is not one: it reads back as absent,
 * which a reducer treats the same.
 *
 * @example
 * jsonSafetyIssue({ seen: new Set() }, 'app') // { path: 'app.seen', what: 'a Set' }
 */
export function jsonSafetyIssue(
  value: unknown,
  path: string,
  seen: Set<object> = new Set(),
): { path: string; what: string } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { path, what: String(value) }
  }
  if (typeof value !== 'object') {
    return value === undefined ? undefined : { path, what: `a ${typeof value}` }
  }
  if (seen.has(value)) return { path, what: 'a cycle' }
  const prototype = Object.getPrototypeOf(value)
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) {
    return { path, what: `a ${prototype?.constructor?.name ?? 'class instance'}` }
  }
  seen.add(value)
  const entries = Array.isArray(value) ? value.entries() : Object.entries(value)
  for (const [key, inner] of entries) {
    // In an array, undefined reads back as null: a change of value.
    if (Array.isArray(value) && inner === undefined)
      return { path: `${path}.${key}`, what: 'undefined' }
    const issue = jsonSafetyIssue(inner, `${path}.${key}`, seen)
    if (issue) return issue
  }
  seen.delete(value)
  return undefined
}
