import { describe, expect, it } from 'vitest'
import { keyedQueue } from '../../../shared/stores/keyed-queue.ts'

const tick = () => new Promise((resolve) => setTimeout(resolve, 1))

describe('keyedQueue()', () => {
  it('runs the tasks of one key one at a time, in call order, and of other keys alongside', async () => {
    const run = keyedQueue()
    const log: string[] = []
    const task = (name: string) => async () => {
      log.push(`${name} start`)
      await tick()
      log.push(`${name} end`)
      return name
    }
    const results = await Promise.all([
      run('a', task('a1')),
      run('a', task('a2')),
      run('b', task('b1')),
    ])
    expect(results).toEqual(['a1', 'a2', 'b1'])
    expect(log.indexOf('a1 end')).toBeLessThan(log.indexOf('a2 start'))
    expect(log.indexOf('b1 start')).toBeLessThan(log.indexOf('a1 end'))
  })

  it('runs the next task of a key after one fails, and hands each caller its own outcome', async () => {
    const run = keyedQueue()
    const failed = run('a', async () => {
      throw new Error('boom')
    })
    const next = run('a', async () => 'next')
    await expect(failed).rejects.toThrow('boom')
    await expect(next).resolves.toBe('next')
  })
})
