/**
 * A command as the fake sees it. `input` is loose on purpose: each test reads
 * the fields of the commands it checks, deep inside SDK input shapes.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type SentCommand = { constructor: { name: string }; input: any }

/** A stand-in for an AWS SDK v3 client: records each command, answers with `answer`. */
export function fakeClient(answer: (command: SentCommand) => unknown = () => ({})) {
  const sent: { name: string; input: SentCommand['input'] }[] = []
  return {
    sent,
    client: {
      send: async (command: SentCommand) => {
        sent.push({ name: command.constructor.name, input: command.input })
        return answer(command)
      },
    } as never,
  }
}
