// The project's own classifier is opened once before the gateway listens, so that a missing,
// unreadable or unusable file stops the start with one line instead of failing requests; the
// worker threads open their own. Its paths are made absolute here, as the threads may not share
// the working directory's meaning with whoever reads the settings.
import { resolve } from 'node:path'
import { ConfigError } from '../../proxy/config.ts'
import { openClassifier, type ClassifierSettings } from '../../workers/scan/classifier/classifier.ts'
import type { governorSchema } from './schema.ts'
import type { z } from 'zod'

type ClassifierConfig = NonNullable<z.infer<typeof governorSchema>['classifier']>

export async function checkedClassifier(config: ClassifierConfig | undefined): Promise<ClassifierSettings | undefined> {
  if (config === undefined) return undefined
  const settings: ClassifierSettings = {
    model: resolve(config.model),
    tokenizer: resolve(config.tokenizer),
    threshold: config.threshold,
    injectionLabel: config.injectionLabel,
    maxTokens: config.maxTokens,
  }
  try {
    const classifier = await openClassifier(settings)
    await classifier.release()
  } catch (err) {
    throw new ConfigError(`plugins.governor.classifier: ${(err as Error).message}`)
  }
  return settings
}
