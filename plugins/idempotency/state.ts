// What idempotency adds to the core's types: its state slot.

/** Set on a request that replays a stored answer instead of running. */
export interface IdempotencyState {
  /** The id of the request that produced the answer: the one charged for it. */
  readonly replayOf: string
  /** The original's key, when its answer was committed, and what it cost: its ledger entry is settled from these. */
  readonly keyId: string
  readonly answeredAt: number
  readonly chargedMicros: number
}

declare module '../../proxy/pipeline/context.ts' {
  interface PluginState {
    idempotency?: IdempotencyState
  }
}
