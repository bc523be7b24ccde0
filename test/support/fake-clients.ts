/** A stand-in for an AWS SDK v3 client: records each command, answers with `answer`. */
export function fakeClient(
  answer: (command: { constructor: { name: string }; input: any }) => unknown = () => ({}),
) {
  const sent: { name: string; input: any }[] = []
  return {
    sent,
    client: {
      send: async (command: { constructor: { name: string }; input: any }) => {
        sent.push({ name: command.constructor.name, input: command.input })
        return answer(command)
      },
    } as never,
  }
}
