// OpenAI's answers as /openapi.json describes them: a `chat.completion` (format.ts writes it) and
// the model objects (models.ts).
import { z } from 'zod'

export const chatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        refusal: z.null(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              type: z.literal('function'),
              function: z.object({ name: z.string(), arguments: z.string() }),
            }),
          )
          .optional(),
      }),
      logprobs: z.null(),
      finish_reason: z.enum(['stop', 'length', 'tool_calls', 'content_filter']),
    }),
  ),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
  system_fingerprint: z.null(),
})

export const modelObjectSchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
})

export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelObjectSchema) })
