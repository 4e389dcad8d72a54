// The project's own benign near-misses (eval/data/*.jsonl, label false): requests that talk about
// attacks, system prompts, role-play. The shipped model may add at most BENIGN_FLAG_RATE of them
// to what the rules flag, so they raise the thresholds where the held-out calibration alone
// would not.
import { readdirSync, readFileSync } from 'node:fs'
import { z } from 'zod'
import { SCRIPT_GROUPS, type ScriptGroup } from '../../workers/scan/injection-features.ts'
import { normalizeText } from '../../workers/scan/normalize.ts'
import { ruleVerdict } from '../../workers/scan/prompt-injection.ts'
import { encodeText } from './encode.ts'
import { BENIGN_FLAG_RATE, textLogit, thresholdFor } from './held-out.ts'
import type { LinearModel } from './trainer.ts'

const BENCH_DATA = new URL('../../eval/data/', import.meta.url)
const Case = z.object({ label: z.boolean(), text: z.string() })

export function benchBenignTexts(): string[] {
  return readdirSync(BENCH_DATA)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .flatMap((name) =>
      readFileSync(new URL(name, BENCH_DATA), 'utf8')
        .split('\n')
        .filter((line) => line.trim().length > 0),
    )
    .map((line) => Case.parse(JSON.parse(line)))
    .filter((c) => !c.label)
    .map((c) => c.text)
}

/** Thresholds raised so that the model flags at most BENIGN_FLAG_RATE of the near-misses the rules leave undecided. */
export function raiseForHardNegatives(thresholds: Record<ScriptGroup, number>, model: LinearModel, texts: readonly string[]): Record<ScriptGroup, number> {
  const logits = new Map<ScriptGroup, number[]>()
  for (const text of texts) {
    const encoded = encodeText(text)
    const undecided = ruleVerdict(normalizeText(text).text).kind === 'undecided'
    logits.set(encoded.script, [...(logits.get(encoded.script) ?? []), undecided ? textLogit(encoded, model) : -Infinity])
  }
  return Object.fromEntries(
    SCRIPT_GROUPS.map((group) => {
      const scores = logits.get(group)
      return [group, scores === undefined ? thresholds[group] : Math.max(thresholds[group], thresholdFor(scores, BENIGN_FLAG_RATE))]
    }),
  ) as Record<ScriptGroup, number>
}
