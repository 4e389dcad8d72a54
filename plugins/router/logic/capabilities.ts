// What a request asks of the model beyond text (tools, the json mode) against what the model
// table says the chosen model can do. Images are checked where the prompt is sized (prompt-size.ts).
import type { AiRequest } from '../../../proxy/pipeline/ai-request.ts'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import type { ModelInfo, ModelName } from '../../../proxy/pipeline/models.ts'

/** The 400 for the first capability the request needs and the model lacks; undefined when it has them all. */
export function missingCapability(ai: AiRequest, model: ModelName, info: ModelInfo): InvalidRequestError | undefined {
  if (info.dimensions !== null) {
    return new InvalidRequestError('Not a chat model', `${model} is an embedding model: send its inputs to /v1/embeddings.`)
  }
  const usesTools = ai.tools !== undefined && ai.tools.length > 0
  const usesJson = ai.mode === 'json'
  if (!usesTools && !usesJson) return undefined
  const { capabilities } = info
  if (usesTools && !capabilities.tools) {
    return new InvalidRequestError(
      'Tools not supported',
      `${model} does not support tools. Send the request without tools, or choose a model that supports them.`,
    )
  }
  if (usesJson && !capabilities.json) {
    return new InvalidRequestError('JSON mode not supported', `${model} does not support the json mode. Ask for text, or choose a model that supports json.`)
  }
  return undefined
}
