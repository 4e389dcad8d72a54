// The project's own classifier reads the texts the prompt-injection rules (and the learned model,
// when it is on) leave undecided, in the same pool task as their scan. A text the rules flag, or
// read as a mention of an attack, is not given to it: a rule hit stays a hit.
import { mergeFindings } from '../merge.ts'
import type { Finding } from '../types.ts'
import { normalizeText } from '../normalize.ts'
import { rulesLeaveUndecided } from '../prompt-injection.ts'
import { openClassifier, type Classifier, type ClassifierSettings } from './classifier.ts'

const opened = new Map<string, Promise<Classifier>>()

function classifierFor(settings: ClassifierSettings): Promise<Classifier> {
  const key = JSON.stringify(settings)
  let classifier = opened.get(key)
  if (classifier === undefined) {
    classifier = openClassifier(settings)
    classifier.catch(() => opened.delete(key))
    opened.set(key, classifier)
  }
  return classifier
}

/** Adds the classifier's finding to each undecided text it flags; `findings` are per text. */
export async function classifyUndecided(texts: readonly string[], findings: Finding[][], settings: ClassifierSettings): Promise<Finding[][]> {
  const classifier = await classifierFor(settings)
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!
    if (findings[i]!.some((finding) => finding.type === 'PROMPT_INJECTION')) continue
    if (!rulesLeaveUndecided(normalizeText(text).text)) continue
    const reading = await classifier.read(text)
    if (reading === undefined || !reading.flagged) continue
    const probability = reading.probability
    findings[i] = mergeFindings([
      ...findings[i]!,
      { type: 'PROMPT_INJECTION', start: reading.start, end: reading.end, score: probability, heuristic: true, model: { probability, withRules: false } },
    ])
  }
  return findings
}
