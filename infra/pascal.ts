/** `admission` → `Admission`: construct IDs from the lane table's names. */
export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1)
}
