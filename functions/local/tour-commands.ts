/** A line of the local servers' banner: a command to try them (or where to point a browser), under a label. */
export interface TourCommand {
  label: string
  /** One shell command; its lines after the first continue it (after a pipe or `\`). */
  command: string
}

/**
 * What `npm start` and `npm run local` print to try the agent with curl and
 * jq, the README's tour in short: open a session, stream it, read its
 * state, send a message. The stream `&follow`s: curl does not reconnect
 * after the quiet end. The message ID ends with the session's ID: an event
 * ID is unique across the store, so a fixed `m1` worked once per server
 * (then `409 PARTIAL_DUPLICATE_BATCH`).
 *
 * @example
 * formatCommands(tourCommands('http://127.0.0.1:3000/api/agent', 'http://127.0.0.1:3000/api/state'))
 */
export function tourCommands(api: string, stateUrl: string): TourCommand[] {
  const session = `"${api}?sessionId=$S" -H "authorization: Bearer $T"`
  return [
    {
      label: 'open a session',
      command: `curl -s -X POST '${api}' -H 'content-type: application/json' -d '{}' > session.json
export S=$(jq -r .sessionId session.json) T=$(jq -r .token session.json)`,
    },
    {
      label: 'stream it',
      command: `curl -N "${api}?sessionId=$S&follow" -H "authorization: Bearer $T"`,
    },
    {
      label: 'read its state',
      command: `curl "${stateUrl}?sessionId=$S" -H "authorization: Bearer $T"`,
    },
    {
      label: 'send a message',
      command: `jq -n --arg id "m1-$S" '{events:[{id:$id,type:"ai.control.requested",payload:{action:"message",generate:true,message:{id:$id,role:"user",parts:[{type:"text",text:"close ticket T-42"}]}}}]}' |
  curl -X POST ${session} -H 'content-type: application/json' -d @-`,
    },
  ]
}

/** The entries as the banner shows them: labels in a column, each line of a command under the first. */
export function formatCommands(commands: readonly TourCommand[]): string {
  const width = Math.max(...commands.map(({ label }) => label.length)) + 2
  return commands
    .map(({ label, command }) =>
      command
        .split('\n')
        .map((line, at) => `  ${(at === 0 ? `${label}:` : '').padEnd(width)}${line}`)
        .join('\n'),
    )
    .join('\n')
}
