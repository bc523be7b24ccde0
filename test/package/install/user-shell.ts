import { join, sep } from 'node:path'
import { repoRoot } from '../../support/repo-root.ts'

/**
 * The environment of a user's shell on this machine: this process's, without
 * what the repo's own npm run and vitest add. No `node_modules/.bin` on the
 * PATH (the repo's Node 22, tsc, cdk and esbuild), so `node` is the
 * machine's own (Node 20 here) and every tool comes from what the page
 * installs; no `npm_*` settings of the enclosing `npm run` (its
 * `npm_config_local_prefix` names the repo); no NODE_ENV or NODE_OPTIONS.
 * npm's cache stays the machine's, so installs reuse what it holds.
 */
export function userShellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|NODE_ENV$|NODE_OPTIONS$|NODE$|INIT_CWD$|TEST$)/i.test(name)) continue
    env[name] = value
  }
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter(
      (dir) =>
        dir &&
        !dir.startsWith(repoRoot + sep) &&
        !dir.endsWith(join('node_modules', '.bin')) &&
        !dir.includes(join('@npmcli', 'run-script')),
    )
    .join(':')
  return env
}
