// Introduction: "Expose the route"
import { assistant } from './assistant.ts'

export const GET = assistant.fetch
export const POST = assistant.fetch
