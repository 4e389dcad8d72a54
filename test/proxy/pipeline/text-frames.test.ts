// A stream's text frames are written from templates, the one frame a stream sends per piece of
// text. They must be the very bytes the frame's object would give, for any text a model sends:
// quotes, backslashes, control characters, emoji and lone surrogates included.
import fc from 'fast-check'
import t from 'tap'
import { openAiFormat } from '../../../proxy/pipeline/dialects/openai/format.ts'
import { nativeFormat } from '../../../proxy/pipeline/native-format.ts'
import { sseFrame } from '../../../proxy/http/sse.ts'
import { CHAT_ROUTE, makeContext } from '../../helpers/make-context.ts'

const texts = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1 }),
  fc.string({ unit: 'grapheme', minLength: 1 }),
  fc.constantFrom('"', '\\', '\n', '\u2028', '\ud800', '</script>'),
)

t.test("the spec's delta event is the frame of { text }", async (t) => {
  const frames = nativeFormat.stream(makeContext({ route: CHAT_ROUTE }), { model: 'gpt-4o-mini', promptTokens: 3 })
  fc.assert(fc.property(texts, (text) => frames.text(text) === sseFrame({ text }, 'delta')))
  t.pass('equal for every text tried')
})

t.test("OpenAI's text chunk is the frame of its chunk object, with and without include_usage", async (t) => {
  for (const includeUsage of [false, true]) {
    const ctx = makeContext({ route: CHAT_ROUTE, id: 'abc', receivedAt: 1_700_000_000_123, body: { stream_options: { include_usage: includeUsage } } })
    const frames = openAiFormat.stream(ctx, { model: 'gpt-4o-mini', promptTokens: 3 })
    const base = {
      id: 'chatcmpl-abc',
      created: 1_700_000_000,
      object: 'chat.completion.chunk',
      model: 'gpt-4o-mini',
      system_fingerprint: null,
      ...(includeUsage && { usage: null }),
    }
    fc.assert(
      fc.property(
        texts,
        (text) => frames.text(text) === sseFrame({ ...base, choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] }),
      ),
    )
    t.equal(frames.text(''), '', 'no frame for no text')
    t.pass(`equal for every text tried (include_usage ${includeUsage})`)
  }
})
