// Strict mode and prompt injection. An injection weighs like any finding (40 points, so "medium"
// on its own), which strict mode lets through; one read with high confidence is blocked whatever
// the request's score. The confidence:
//   - with the learned model on, the model's probability for a text the phrase rules also flag:
//     the two agree;
//   - the model alone never blocks: it speaks where the rules could not decide, and a benign text
//     it flags is no reason to refuse a request;
//   - with the model off, the rules' own score: a rule hit of high confidence (two independent
//     signals, or one of the strongest phrases alone).
// The default threshold, measured on ../shared/data/prompt-injection/train.jsonl (texts the rules
// flag: 1,153 attacks, 4 benign): the model gives 0.9 or more to 1,150 of the attacks and none of
// the benign (in sample: the model was trained on that file); the rules' score reaches it for 770
// of the attacks and 2 of the benign.
import type { GovernorSettings } from '../../state.ts'
import type { Finding } from '../../../../workers/scan-content.ts'

const DEFAULT_INJECTION_BLOCK_THRESHOLD = 0.9

export function injectionBlockThreshold(settings: GovernorSettings): number {
  return settings.injectionBlockThreshold ?? DEFAULT_INJECTION_BLOCK_THRESHOLD
}

/** How sure the Governor is that a prompt-injection finding is an attack, for strict mode. */
function blockingConfidence(finding: Finding): number {
  if (finding.model === undefined) return finding.score
  return finding.model.withRules ? finding.model.probability : 0
}

/** Some finding is a prompt injection strict mode blocks at `threshold`. */
export function holdsBlockingInjection(findings: readonly Finding[], threshold: number): boolean {
  return findings.some((finding) => finding.type === 'PROMPT_INJECTION' && blockingConfidence(finding) >= threshold)
}
