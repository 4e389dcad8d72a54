// A count of requests per UTC calendar day. Pure: the caller owns the state and the clock.

export interface QuotaState {
  readonly day: number
  readonly used: number
}

interface QuotaTake {
  readonly allowed: boolean
  readonly state: QuotaState
  readonly remaining: number
  /** Until the next UTC midnight. */
  readonly resetInMs: number
}

const DAY_MS = 86_400_000

export function takeQuota(previous: QuotaState | undefined, perDay: number, nowMs: number): QuotaTake {
  const day = Math.floor(nowMs / DAY_MS)
  const used = previous !== undefined && previous.day === day ? previous.used : 0
  const allowed = used < perDay
  const next = { day, used: allowed ? used + 1 : used }
  return { allowed, state: next, remaining: perDay - next.used, resetInMs: (day + 1) * DAY_MS - nowMs }
}
