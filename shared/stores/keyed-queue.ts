/**
 * Runs tasks one at a time per key, in call order; tasks of different keys
 * run concurrently. A failed task does not stop the ones queued after it.
 *
 * @example
 * const inOrder = keyedQueue()
 * await Promise.all([inOrder('s1', () => write(1)), inOrder('s1', () => write(2))])
 */
export function keyedQueue(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>()
  return (key, task) => {
    const result = (tails.get(key) ?? Promise.resolve()).then(task)
    const tail = result.catch(() => undefined)
    tails.set(key, tail)
    // Forget a key once its last task settles, so idle keys cost nothing.
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key)
    })
    return result
  }
}
