// Records the metering store tests settle and hold: one project `p`, key `k`, November 2026.
import type { Hold, LedgerEntry } from '../../../../plugins/metering/store/records.ts'

export const entry = (id: string, costMicros: number): LedgerEntry => ({
  id,
  projectId: 'p',
  keyId: 'k',
  at: '2026-11-21T00:00:00.000Z',
  month: '2026-11',
  day: '2026-11-21',
  provider: 'openai',
  model: 'gpt-4o',
  promptTokens: 10,
  completionTokens: 10,
  costMicros,
  cacheHit: false,
  outcome: 'ok',
})

export const hold = (requestId: string, micros: number): Hold => ({ requestId, projectId: 'p', month: '2026-11', micros })
