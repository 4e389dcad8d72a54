import t from 'tap'
import { UpstreamError } from '../../../../proxy/pipeline/errors.ts'
import { fallbackTrigger, isContentPolicyError, isContextLengthError } from '../../../../plugins/router/logic/fallbacks.ts'
import { providerError } from '../../../../plugins/router/providers/provider-error.ts'

const openai = (code: string, message: string) =>
  providerError('openai', 400, JSON.stringify({ error: { message, type: 'invalid_request_error', code } }), 'sk-x')
const anthropic = (message: string) =>
  providerError('anthropic', 400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }), 'sk-x')

t.test("knows a context-length refusal by OpenAI's code and by Anthropic's and Mistral's words", async (t) => {
  t.ok(isContextLengthError(openai('context_length_exceeded', 'too long')))
  t.ok(isContextLengthError(anthropic('prompt is too long: 210000 tokens > 200000 maximum')))
  t.ok(
    isContextLengthError(
      providerError('mistral', 400, JSON.stringify({ message: 'Prompt contains 40000 tokens, too large for model with 32768 maximum context length' }), 'k'),
    ),
  )
  t.notOk(isContextLengthError(openai('invalid_value', 'temperature must be at most 2')))
})

t.test('knows a content-policy refusal by its code or words', async (t) => {
  t.ok(isContentPolicyError(openai('content_policy_violation', 'refused')))
  t.ok(isContentPolicyError(openai('content_filter', 'The response was filtered')))
  t.ok(isContentPolicyError(anthropic('Output blocked by content filtering policy')))
  t.notOk(isContentPolicyError(openai('invalid_api_key', 'Incorrect API key')))
})

t.test('only a refusal counts: not a 429, a 5xx, or an error without a status', async (t) => {
  const trigger = fallbackTrigger({ contextLength: true, contentPolicy: true })!
  t.notOk(trigger(providerError('openai', 429, JSON.stringify({ error: { message: 'context length', code: 'context_length_exceeded' } }), 'k')))
  t.notOk(trigger(providerError('openai', 500, JSON.stringify({ error: { message: 'context length' } }), 'k')))
  t.notOk(trigger(new UpstreamError('openai reported an error in its stream: context length', false)))
  t.notOk(trigger(new Error('context length')))
})

t.test('each trigger can be turned off, and with both off there is no predicate', async (t) => {
  const onlyPolicy = fallbackTrigger({ contextLength: false, contentPolicy: true })!
  t.notOk(onlyPolicy(openai('context_length_exceeded', 'too long')))
  t.ok(onlyPolicy(openai('content_policy_violation', 'refused')))
  t.equal(fallbackTrigger({ contextLength: false, contentPolicy: false }), undefined)
})
