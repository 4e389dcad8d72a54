// The stop signals of `tollgate serve`, taken from the process's first moment. Loading the
// gateway's modules takes seconds on a busy machine; a SIGTERM or SIGINT meanwhile is kept and
// acted on once serve() can stop what has started, instead of ending the process by the signal.
// Only the first signal counts (a terminal's Ctrl-C and `npm start` may deliver one twice), and
// its time is kept, so that the grace is counted from it.

export interface StopRequest {
  readonly signal: NodeJS.Signals
  /** performance.now() when the signal arrived. */
  readonly at: number
}

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const

let taken = false
let request: StopRequest | undefined
let stop: ((request: StopRequest) => void) | undefined

export function takeStopSignals(): void {
  if (taken) return
  taken = true
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (request !== undefined) return
      request = { signal, at: performance.now() }
      stop?.(request)
    })
  }
}

/** `then` runs once, for the first stop signal: at once if it has already arrived. */
export function onStopSignal(then: (request: StopRequest) => void): void {
  takeStopSignals()
  stop = then
  if (request !== undefined) then(request)
}
