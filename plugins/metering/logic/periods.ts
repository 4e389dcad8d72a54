// Calendar periods in UTC: the budget month, and the day/ISO-week/month windows of /api/usage.

export type Period = 'day' | 'week' | 'month'

const DAY_MS = 86_400_000

// Every request asks for its day and month; formatting a date each time showed in profiles, so
// the strings of the current UTC day are kept until the clock leaves it.
let current = { start: 0, end: 0, day: '', month: '' }

function calendarOf(ms: number): { readonly day: string; readonly month: string } {
  if (ms < current.start || ms >= current.end) {
    const start = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS)
    const iso = new Date(start).toISOString()
    current = { start, end: start + DAY_MS, day: iso.slice(0, 10), month: iso.slice(0, 7) }
  }
  return current
}

export function dayKey(ms: number): string {
  return calendarOf(ms).day
}

export function monthKey(ms: number): string {
  return calendarOf(ms).month
}

export interface PeriodRange {
  /** First day, inclusive, as YYYY-MM-DD. */
  readonly start: string
  /** Last day, inclusive, as YYYY-MM-DD. */
  readonly end: string
}

export function periodRange(period: Period, nowMs: number): PeriodRange {
  const now = new Date(nowMs)
  const y = now.getUTCFullYear()
  const m = now.getUTCMonth()
  if (period === 'day') return { start: dayKey(nowMs), end: dayKey(nowMs) }
  if (period === 'month') return { start: dayKey(Date.UTC(y, m, 1)), end: dayKey(Date.UTC(y, m + 1, 0)) }
  // ISO week: Monday to Sunday.
  const today = Date.UTC(y, m, now.getUTCDate())
  const monday = today - ((now.getUTCDay() + 6) % 7) * DAY_MS
  return { start: dayKey(monday), end: dayKey(monday + 6 * DAY_MS) }
}

/** Every day of a range, as YYYY-MM-DD. */
export function daysOf(range: PeriodRange): string[] {
  const days: string[] = []
  for (let t = Date.parse(range.start); t <= Date.parse(range.end); t += DAY_MS) days.push(dayKey(t))
  return days
}
