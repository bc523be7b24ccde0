/**
 * Whether an exact version is inside an npm range, for the few range forms
 * package.json uses (`^1.2.3`, `>=0.25`, alternatives joined by `||`). Any
 * other form throws, so a new one cannot pass unread. (npm's own `semver` is
 * not a dependency of the repo, only of its tools.)
 *
 * @example
 * satisfies('19.2.9', '^19.0.0') // true
 */
export function satisfies(version: string, range: string): boolean {
  const exact = parts(version)
  return range.split('||').some((alternative) => {
    const form = /^(\^|>=)(\d+(?:\.\d+){0,2})$/.exec(alternative.trim())
    if (!form) throw new Error(`Unsupported range form "${alternative}" in "${range}"`)
    const floor = parts(form[2] as string)
    if (compare(exact, floor) < 0) return false
    // A caret keeps the first non-zero part: ^4.6.7 is below 5, ^0.25.0 below 0.26.
    if (form[1] === '^') {
      const kept = floor.findIndex((part) => part !== 0)
      const fixed = kept === -1 ? floor.length : kept + 1
      return floor.slice(0, fixed).every((part, at) => exact[at] === part)
    }
    return true
  })
}

/** Whether a version string is an exact release (`1.2.3`), not a range. */
export function isExactVersion(version: string): boolean {
  return /^\d+\.\d+\.\d+$/.test(version)
}

function parts(version: string): number[] {
  const numbers = version.split('.').map(Number)
  while (numbers.length < 3) numbers.push(0)
  if (numbers.some((part) => !Number.isInteger(part))) throw new Error(`Not a version: ${version}`)
  return numbers
}

function compare(a: number[], b: number[]): number {
  for (let at = 0; at < 3; at++) {
    const difference = (a[at] as number) - (b[at] as number)
    if (difference !== 0) return difference
  }
  return 0
}
