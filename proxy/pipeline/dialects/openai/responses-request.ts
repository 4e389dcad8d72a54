// The body of OpenAI's POST /v1/responses as the official SDKs send it: `input` as a text or as
// items (messages, the model's function calls and their outputs, as a client passes a response's
// output back), `instructions`, function tools and `text.format`, mapped to the gateway's
// AiRequest. The gateway keeps no responses: a conversation travels in `input`, and
// `previous_response_id` or `background` get a 400 that says so.
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { governorMetadataSchema, type AiRequest, type ContentPart, type Message, type ToolCall, type ToolChoice } from '../../ai-request.ts'
import type { ParsedAiBody } from '../../dialect.ts'
import { oneOf, validate } from '../../../http/validate.ts'
import { governorMetadataOf, ignoredFieldsHeader, joinTexts, modelChoiceOf, modelOrTierSchema, toolNameSchema } from '../shared.ts'
import { chatCompletionsRequestSchema } from './request.ts'

const MAX_ITEMS = 1000
const MAX_TOOLS = 128

const chat = chatCompletionsRequestSchema.shape

const inputText = z.object({ type: z.literal('input_text'), text: z.string({ error: 'an input_text part needs text' }) })
const outputText = z.object({ type: z.literal('output_text'), text: z.string({ error: 'an output_text part needs text' }) })
const refusalPart = z.object({ type: z.literal('refusal'), refusal: z.string() })
const inputImage = z.object({
  type: z.literal('input_image'),
  image_url: z.string().regex(/^(?:https?:\/\/|data:image\/)/, 'image_url must be an http(s) URL or a data:image URL'),
  detail: z.enum(['auto', 'low', 'high']).optional(),
})

const messageItem = z.object({
  type: z.literal('message').optional(),
  role: oneOf('role', ['user', 'system', 'developer', 'assistant']),
  content: z.union(
    [
      z.string(),
      z.array(
        z.discriminatedUnion('type', [inputText, inputImage, outputText, refusalPart], {
          error: 'a content part must be input_text, input_image, output_text or refusal',
        }),
      ),
    ],
    { error: 'content must be a string or an array of content parts' },
  ),
})
const functionCallItem = z.object({
  type: z.literal('function_call'),
  call_id: z.string().min(1, 'a function_call needs a call_id'),
  name: z.string().min(1, 'a function_call needs a name'),
  arguments: z.string({ error: "a function_call's arguments are JSON text" }),
})
const functionCallOutputItem = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1, 'a function_call_output needs a call_id'),
  output: z.union([z.string(), z.array(inputText)], { error: "a function_call_output's output must be a string or input_text parts" }),
})
/** A model's reasoning, passed back with its output: nothing another model can read. */
const reasoningItem = z.object({ type: z.literal('reasoning') })

const inputItem = z.union([messageItem, functionCallItem, functionCallOutputItem, reasoningItem])

const toolSchema = z.object({
  type: z.literal('function', { error: 'only function tools are supported' }),
  name: toolNameSchema,
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
})

const toolChoiceSchema = z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), name: z.string() })], {
  error: 'tool_choice must be none, auto, required or {type: "function", name}',
})

const textFormatSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text') }),
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      name: z.string().min(1),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullish(),
    }),
  ],
  { error: 'text.format.type must be text, json_object or json_schema' },
)

const fields = {
  model: modelOrTierSchema,
  input: z.union([z.string(), z.array(inputItem).min(1, 'input must hold at least one item').max(MAX_ITEMS, `input may hold at most ${MAX_ITEMS} items`)], {
    error: 'input must be a string or an array of input items (messages, function_call, function_call_output, reasoning)',
  }),
  instructions: z.string({ error: 'instructions must be a string' }).nullish(),
  max_output_tokens: chat.max_tokens,
  temperature: chat.temperature,
  top_p: chat.top_p,
  tools: z.array(toolSchema).max(MAX_TOOLS, `tools may hold at most ${MAX_TOOLS} tools`).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.object({ format: textFormatSchema.optional() }).nullish(),
  metadata: z.record(z.string(), z.string().max(512)).nullish(),
  store: z.boolean().nullish(),
  user: chat.user,
  stream: chat.stream,
  previous_response_id: z.null({ error: 'previous_response_id is not supported: the gateway keeps no responses, send the conversation in input' }).optional(),
  background: z.literal(false, { error: 'background is not supported: the gateway answers while the request is open' }).nullish(),
  governorMetadata: governorMetadataSchema.optional(),
}

export const responsesRequestSchema = z.object(fields).superRefine((body, ctx) => {
  const choice = body.tool_choice
  const names = new Set(body.tools?.map((tool) => tool.name) ?? [])
  if (choice !== undefined && choice !== null && choice !== 'none' && names.size === 0) {
    ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: 'tool_choice needs tools' })
  }
  if (typeof choice === 'object' && choice !== null && !names.has(choice.name)) {
    ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: `tool_choice names ${choice.name}, which is not among the tools` })
  }
})

export type ResponsesRequest = z.output<typeof responsesRequestSchema>
type InputItem = z.output<typeof inputItem>
type MessageItem = z.output<typeof messageItem>

const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(fields))

function messageOf(item: MessageItem): Message {
  const role = item.role === 'developer' ? 'system' : item.role
  if (typeof item.content === 'string') return { role, content: item.content }
  const parts: ContentPart[] = item.content.flatMap((part): ContentPart[] => {
    switch (part.type) {
      case 'input_image':
        return [{ type: 'image', url: part.image_url, detail: part.detail }]
      case 'refusal':
        return [{ type: 'text', text: part.refusal }]
      default:
        return [{ type: 'text', text: part.text }]
    }
  })
  const content = joinTexts(parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])))
  return role === 'user' && parts.some((part) => part.type === 'image') ? { role, content, parts } : { role, content }
}

/** The items as chat messages: a run of function calls joins the assistant message before it. */
function messagesOf(instructions: string | null | undefined, input: string | readonly InputItem[]): Message[] {
  const messages: Message[] = instructions === undefined || instructions === null ? [] : [{ role: 'system', content: instructions }]
  if (typeof input === 'string') return [...messages, { role: 'user', content: input }]
  for (const item of input) {
    switch (item.type) {
      case 'reasoning':
        break
      case 'function_call': {
        const call: ToolCall = { id: item.call_id, name: item.name, arguments: item.arguments }
        const last = messages.at(-1)
        if (last?.role === 'assistant') messages[messages.length - 1] = { ...last, toolCalls: [...(last.toolCalls ?? []), call] }
        else messages.push({ role: 'assistant', content: '', toolCalls: [call] })
        break
      }
      case 'function_call_output': {
        const output = typeof item.output === 'string' ? item.output : joinTexts(item.output.map((part) => part.text))
        messages.push({ role: 'tool', content: output, toolCallId: item.call_id })
        break
      }
      default:
        messages.push(messageOf(item))
    }
  }
  return messages
}

function toolChoiceOf(choice: ResponsesRequest['tool_choice']): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined
  return typeof choice === 'string' ? choice : { name: choice.name }
}

function toResponsesAiRequest(body: ResponsesRequest, headers: IncomingHttpHeaders): AiRequest {
  const format = body.text?.format
  const tools = body.tools === null || body.tools?.length === 0 ? undefined : body.tools
  return {
    ...modelChoiceOf(body.model),
    messages: messagesOf(body.instructions, body.input),
    temperature: body.temperature ?? undefined,
    maxTokens: body.max_output_tokens ?? undefined,
    mode: format?.type === 'json_object' || format?.type === 'json_schema' ? 'json' : 'text',
    governorMetadata: governorMetadataOf(body.governorMetadata, headers),
    stream: body.stream === true,
    tools: tools?.map((tool) => ({
      name: tool.name,
      description: tool.description ?? undefined,
      parameters: tool.parameters ?? { type: 'object', properties: {} },
    })),
    toolChoice: toolChoiceOf(body.tool_choice),
    topP: body.top_p ?? undefined,
    jsonSchema: format?.type === 'json_schema' ? { name: format.name, schema: format.schema, strict: format.strict ?? undefined } : undefined,
    user: body.user ?? undefined,
  }
}

export function parseResponses(raw: unknown, headers: IncomingHttpHeaders): ParsedAiBody {
  const body = validate(responsesRequestSchema, raw)
  return { request: toResponsesAiRequest(body, headers), body, headers: ignoredFieldsHeader(raw, KNOWN_FIELDS) }
}
