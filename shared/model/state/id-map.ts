// Plain-object maps keyed by IDs from outside (chunk IDs, tool-call IDs). They
// stay JSON-safe for snapshots; reads use `Object.hasOwn` and writes define the
// property, so a key like `__proto__` is data, never the prototype.

export type IdMap<V> = Record<string, V>

export function getId<V>(map: IdMap<V>, key: string): V | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined
}

export function setId<V>(map: IdMap<V>, key: string, value: V): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true })
}

export function deleteId<V>(map: IdMap<V>, key: string): void {
  if (Object.hasOwn(map, key)) delete map[key]
}

export function copyIdMap<V>(map: IdMap<V>): IdMap<V> {
  const copy: IdMap<V> = {}
  for (const key of Object.keys(map)) setId(copy, key, map[key] as V)
  return copy
}
