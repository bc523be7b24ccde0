import { describe, expect, it } from 'vitest'
import { parseVerifyArgs } from '../../../../functions/cli/verify/args.ts'

const usageError = (message: RegExp) =>
  expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(message) })

describe('verify arguments', () => {
  it('takes a stack, with every check and the documented defaults', () => {
    expect(parseVerifyArgs(['--stack', 'Support'])).toEqual({
      stack: 'Support',
      headers: [],
      checks: [
        'concurrency',
        'alarms',
        'models',
        'answer',
        'streaming',
        'heartbeat',
        'timer',
        'closed',
        'router',
      ],
      quietSeconds: 75,
      timerMinutes: 2,
      answerSeconds: 120,
      json: false,
      help: false,
    })
  })

  it('takes a URL, repeated headers, timings, a message and JSON output', () => {
    const args = parseVerifyArgs([
      '--url',
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod/agent',
      '--header',
      'Authorization: Bearer a:b',
      '--header',
      'x-user-id:  u1 ',
      '--quiet-seconds',
      '90',
      '--timer-minutes',
      '0.5',
      '--answer-seconds',
      '30',
      '--message',
      'Tell me a story',
      '--json',
    ])
    expect(args).toMatchObject({
      url: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/agent',
      headers: [
        ['Authorization', 'Bearer a:b'],
        ['x-user-id', 'u1'],
      ],
      quietSeconds: 90,
      timerMinutes: 0.5,
      answerSeconds: 30,
      message: 'Tell me a story',
      json: true,
    })
  })

  it('picks checks with --only or --skip, in report order', () => {
    expect(parseVerifyArgs(['--url', 'http://x/agent', '--only', 'timer,answer']).checks).toEqual([
      'answer',
      'timer',
    ])
    expect(
      parseVerifyArgs(['--stack', 'S', '--skip', 'closed', '--agent', 'S/Agent']),
    ).toMatchObject({
      checks: [
        'concurrency',
        'alarms',
        'models',
        'answer',
        'streaming',
        'heartbeat',
        'timer',
        'router',
      ],
      agent: 'S/Agent',
    })
  })

  it('refuses what it cannot use, saying what is wrong', () => {
    expect(() => parseVerifyArgs([])).toThrow(usageError(/--stack <name> or --url/))
    expect(() => parseVerifyArgs(['--url', 'http://x', '--agent', 'A'])).toThrow(
      usageError(/--stack too/),
    )
    expect(() => parseVerifyArgs(['--stack', 'S', '--only', 'answer', '--skip', 'timer'])).toThrow(
      usageError(/not both/),
    )
    expect(() => parseVerifyArgs(['--stack', 'S', '--only', 'answer,latency'])).toThrow(
      usageError(/no check named latency/),
    )
    expect(() =>
      parseVerifyArgs([
        '--stack',
        'S',
        '--skip',
        'concurrency,alarms,models,answer,streaming,heartbeat,timer,closed,router',
      ]),
    ).toThrow(usageError(/No check left/))
    expect(() => parseVerifyArgs(['--stack', 'S', '--header', 'no colon'])).toThrow(
      usageError(/'name: value'/),
    )
    expect(() => parseVerifyArgs(['--stack', 'S', '--quiet-seconds', 'soon'])).toThrow(
      usageError(/--quiet-seconds must be a positive number/),
    )
    expect(() => parseVerifyArgs(['--url', 'ftp://x/agent'])).toThrow(usageError(/http\(s\)/))
    expect(() => parseVerifyArgs(['--url', 'not a url'])).toThrow(usageError(/not a URL/))
    expect(() => parseVerifyArgs(['--stack', 'S', '--stak', 'T'])).toThrow(usageError(/stak/))
  })

  it('asks for no agent when only help is wanted', () => {
    expect(parseVerifyArgs(['--help']).help).toBe(true)
  })
})
