/** Told of every effect an `effectLedger()` was asked to perform (the simulator attributes it to a run). */
type EffectObserver = (ledger: string, what: string, performed: boolean) => void

let observer: EffectObserver | undefined

/** Sets the one observer of effects until the returned function is called. */
export function observeEffects(next: EffectObserver): () => void {
  observer = next
  return () => {
    if (observer === next) observer = undefined
  }
}

/** What an effect ledger calls on each `perform()`. */
export function effectObserved(ledger: string, what: string, performed: boolean): void {
  observer?.(ledger, what, performed)
}
