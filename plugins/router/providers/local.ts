// The built-in local provider: serves any model with simulated answers (tool calls included) and
// embeddings,
// reports usage the way a real provider does, and streams in paced chunks. It never makes a
// network call.
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { ProviderEvent, ProviderResult } from '../../../proxy/pipeline/completion.ts'
import { pause } from '../pause.ts'
import type { ProviderAdapter } from './adapter.ts'
import { simulateAnswer } from './local-answer.ts'
import { localEmbeddings } from './local-embeddings.ts'

interface LocalOptions {
  /** Pause between two streamed chunks; 0 streams them back to back. */
  readonly chunkDelayMs: number
  /** The model table in force: an embedding's length is its model's. */
  readonly catalog: ModelCatalog
}

const WORDS_PER_CHUNK = 6
const MIN_CHUNKS = 3
const MAX_CHUNKS = 24

/** Splits a text that starts with a word into MIN_CHUNKS to MAX_CHUNKS pieces, at word boundaries. */
export function splitIntoChunks(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? []
  const count = Math.min(words.length, MAX_CHUNKS, Math.max(MIN_CHUNKS, Math.ceil(words.length / WORDS_PER_CHUNK)))
  const chunks: string[] = []
  for (let i = 0; i < count; i++) {
    const from = Math.floor((i * words.length) / count)
    const to = Math.floor(((i + 1) * words.length) / count)
    chunks.push(words.slice(from, to).join(''))
  }
  return chunks
}

export function createLocalAdapter(options: LocalOptions): ProviderAdapter {
  return {
    target: 'built-in',

    async complete(request, signal): Promise<ProviderResult> {
      signal.throwIfAborted()
      const answer = simulateAnswer(request)
      return {
        text: answer.text,
        usage: { promptTokens: request.promptTokens, completionTokens: answer.completionTokens },
        ...(answer.toolCalls !== undefined && { toolCalls: answer.toolCalls }),
        finishReason: answer.finishReason,
      }
    },

    // A batch per paced chunk of text, then one with the tool calls, the finish reason and usage.
    async *stream(request, signal): AsyncGenerator<readonly ProviderEvent[], void, undefined> {
      signal.throwIfAborted()
      const answer = simulateAnswer(request)
      const chunks = splitIntoChunks(answer.text)
      for (let i = 0; i < chunks.length; i++) {
        if (i > 0) await pause(options.chunkDelayMs, signal)
        yield [{ type: 'delta', text: chunks[i] as string }]
      }
      const last: ProviderEvent[] = []
      const calls = answer.toolCalls ?? []
      for (let index = 0; index < calls.length; index++) {
        const call = calls[index]!
        // Like the providers: the call's id and name first, then its arguments.
        last.push({ type: 'tool_call', delta: { index, id: call.id, name: call.name, arguments: '' } })
        last.push({ type: 'tool_call', delta: { index, arguments: call.arguments } })
      }
      last.push({ type: 'finish', reason: answer.finishReason })
      last.push({ type: 'usage', usage: { promptTokens: request.promptTokens, completionTokens: answer.completionTokens } })
      yield last
    },

    async embed(request, signal): Promise<ProviderResult> {
      signal.throwIfAborted()
      return localEmbeddings(request, options.catalog)
    },
  }
}
