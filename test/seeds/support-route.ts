// Conversations: the route's authorize decides app events
import { supportDeskAgent } from './support-desk-agent.ts'

function handle(request: Request): Promise<Response> {
  // here's where you'd do auth, or any other checks:
  return supportDeskAgent.fetch(request, {
    authorize: (operation) =>
      operation.type !== 'push' || operation.events.every((event) => event.type !== 'plan.changed'),
  })
}

export const GET = handle
export const POST = handle
