import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot as root } from '../support/repo-root.ts'
import { isExactVersion, satisfies } from '../support/version-range.ts'

// What the package asks of a user's node_modules (issue 23): ranges, so npm
// can share one copy with the app and the app takes fixes; peers for what
// the app shares an instance with; the repo's own installs pinned exactly.
interface Manifest {
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
}
const read = (file: string): unknown => JSON.parse(readFileSync(join(root, file), 'utf8'))
const manifest = read('package.json') as Manifest
const lock = read('package-lock.json') as { packages: Record<string, Partial<Manifest>> }
const optional = (name: string): boolean => manifest.peerDependenciesMeta[name]?.optional === true

describe('the dependency list', () => {
  it('gives every dependency a caret range, none an exact pin, so npm can share one copy with the app', () => {
    const pinned = Object.entries(manifest.dependencies).filter(
      ([, range]) => !/^\^\d+\.\d+\.\d+$/.test(range),
    )
    expect(pinned).toEqual([])
  })

  it('makes React an optional peer, never installed under a2-aws (a second React breaks useAgent() with "Invalid hook call"); react-dom is not ours to ask for', () => {
    expect(manifest.dependencies).not.toHaveProperty('react')
    expect(manifest.dependencies).not.toHaveProperty('react-dom')
    expect(manifest.peerDependencies.react).toBeDefined()
    expect(optional('react')).toBe(true)
    // The built code never imports react-dom (package-build.test.ts checks every import).
    expect(manifest.peerDependencies).not.toHaveProperty('react-dom')
  })

  it("makes ai and zod required peers: the app's tool(), UIMessage and zod schemas must be the instances a2-aws types and runs against", () => {
    for (const name of ['ai', 'zod']) {
      expect(manifest.dependencies, name).not.toHaveProperty(name)
      expect(manifest.peerDependencies[name], name).toMatch(/^\^\d+\.\d+\.\d+$/)
      expect(optional(name), name).toBe(false)
    }
  })

  it('pins every devDependency exactly, and every peer at a version inside its range, at the floor for ai and zod', () => {
    expect(
      Object.entries(manifest.devDependencies).filter(([, version]) => !isExactVersion(version)),
    ).toEqual([])
    for (const [name, range] of Object.entries(manifest.peerDependencies)) {
      const pinned = manifest.devDependencies[name]
      expect(pinned, `${name} is a devDependency`).toBeDefined()
      expect(satisfies(pinned as string, range), `${name}@${pinned} in ${range}`).toBe(true)
    }
    for (const name of ['ai', 'zod']) {
      expect(manifest.peerDependencies[name]).toBe(`^${manifest.devDependencies[name]}`)
    }
  })

  it("matches package-lock.json's root entry, so npm ci installs what package.json says", () => {
    const rootEntry = lock.packages[''] as Partial<Manifest>
    expect(rootEntry.dependencies).toEqual(manifest.dependencies)
    expect(rootEntry.devDependencies).toEqual(manifest.devDependencies)
    expect(rootEntry.peerDependencies).toEqual(manifest.peerDependencies)
    expect(rootEntry.peerDependenciesMeta).toEqual(manifest.peerDependenciesMeta)
  })
})

describe('the package notes (docs/use-in-your-project.md)', () => {
  const page = readFileSync(join(root, 'docs/use-in-your-project.md'), 'utf8')
  const notes = page.slice(page.indexOf('## What the package installs'))
  const section = notes.slice(0, notes.indexOf('\n## ', 1))
  const rows = [...section.matchAll(/^\| (`.+?`) +\| (.+?) +\| (.+?) +\|$/gm)].map((match) => ({
    names: [...(match[1] as string).matchAll(/`([^`]+)`/g)].map((name) => name[1] as string),
    range: match[2] as string,
    why: match[3] as string,
  }))

  it('has a row for every peer, with its range, whether it is optional, and a reason', () => {
    for (const [name, range] of Object.entries(manifest.peerDependencies)) {
      const row = rows.find((candidate) => candidate.names.includes(name))
      expect(row, name).toBeDefined()
      expect(row?.range, name).toContain(`\`${range}\``)
      expect(row?.range, name).toContain(optional(name) ? 'optional' : 'required')
      expect(row?.why.length, name).toBeGreaterThan(40)
    }
    expect(rows.flatMap((row) => row.names).sort()).toEqual(
      Object.keys(manifest.peerDependencies).sort(),
    )
  })

  it('says why the AI SDK providers are dependencies and not peers', () => {
    const providers = Object.keys(manifest.dependencies).filter((name) =>
      name.startsWith('@ai-sdk/'),
    )
    expect(providers).toContain('@ai-sdk/amazon-bedrock')
    for (const name of providers) expect(section, name).toContain(`\`${name}\``)
  })
})
