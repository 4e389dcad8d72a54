// Named moments where a crash test needs the process to die (after an answer is charged, after
// an idempotent answer is stored), to prove what survives a kill -9 right there. Nothing in the
// gateway or its config installs a hook, so in production reaching a point does nothing; the
// test suite preloads test/helpers/crash-points.ts into the gateways it means to crash.

export type CrashPoint = 'answer-charged' | 'idempotency-commit'

let hook: ((point: CrashPoint) => void) | undefined

/** Marks that the process has reached `point`. */
export function reachedCrashPoint(point: CrashPoint): void {
  hook?.(point)
}

/** Called only by the test suite's preload. */
export function onCrashPoint(handler: (point: CrashPoint) => void): void {
  hook = handler
}
