// The published build's stand-in for `a2-aws-agent-module`: the user's agent
// module, which the A2Agent construct bundles in with an esbuild alias.
declare module 'a2-aws-agent-module' {
  const agentModule: Record<string, unknown>
  export = agentModule
}
