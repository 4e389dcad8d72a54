// Anthropic's answers as /openapi.json describes them: a `message` (format.ts writes it) and the
// count_tokens answer.
import { z } from 'zod'

export const messageAnswerSchema = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
    ]),
  ),
  stop_reason: z.enum(['end_turn', 'max_tokens', 'tool_use', 'refusal']),
  stop_sequence: z.null(),
  usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
})

export const countTokensAnswerSchema = z.object({ input_tokens: z.number().int() })
