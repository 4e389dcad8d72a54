// Why strict mode blocks a request, if it does: its risk level (high or critical), or a prompt
// injection read with high confidence (injection-block.ts), which alone scores only medium.
import type { GovernorSettings } from '../../state.ts'
import type { Finding } from '../../../../workers/scan-content.ts'
import { holdsBlockingInjection, injectionBlockThreshold } from './injection-block.ts'
import { isBlockingLevel } from './levels.ts'
import type { Verdict } from './types.ts'

type StrictBlock = 'risk' | 'injection'

export function strictBlock(settings: GovernorSettings, verdict: Verdict, findings: readonly Finding[]): StrictBlock | undefined {
  if (!settings.strictMode) return undefined
  if (isBlockingLevel(verdict.level)) return 'risk'
  return holdsBlockingInjection(findings, injectionBlockThreshold(settings)) ? 'injection' : undefined
}
