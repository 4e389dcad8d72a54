// Limit state in this process only: one gateway process alone on its limits.
import { checkLimits, type KeyLimitState } from '../logic/check-limits.ts'
import type { LimitStore } from './index.ts'

export function memoryLimitStore(): LimitStore {
  const states = new Map<string, KeyLimitState>()
  return {
    check(keyId, limits, nowMs) {
      const verdict = checkLimits(limits, states.get(keyId), nowMs)
      if (verdict !== undefined) states.set(keyId, verdict.next)
      return verdict
    },
  }
}
