import t from 'tap'
import { scrubLogText } from '../../../proxy/kit/scrub-log-text.ts'
import { logError } from '../../../proxy/log.ts'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'

t.test('quoted spans go, whatever the quotes, apostrophes inside them included', async (t) => {
  t.equal(scrubLogText(`Invalid value for 'messages[0].content': "the user's plan"`), 'Invalid value for [quoted]: [quoted]')
  t.equal(scrubLogText("Input 'it's my aunt's note' is not valid"), 'Input [quoted] is not valid')
  t.equal(scrubLogText('saw “smart quotes” and «guillemets» and `ticks` and ‘single’'), 'saw [quoted] and [quoted] and [quoted] and [quoted]')
  t.equal(
    scrubLogText("This model's context length is 8192 tokens; you asked for 9000."),
    "This model's context length is 8192 tokens; you asked for 9000.",
    'apostrophes inside words open nothing',
  )
})

t.test('a quote left open drops everything after it', async (t) => {
  t.equal(scrubLogText('bad input: "my secret plan is'), 'bad input: [quoted]')
  t.equal(scrubLogText("bad input: 'my secret plan is"), 'bad input: [quoted]')
})

t.test('e-mail addresses, IP addresses, long digit runs and key-like tokens go', async (t) => {
  t.equal(scrubLogText('card 4111 1111 1111 1111, ssn 123-45-6789, call +44 20 7946 0958'), 'card [number], ssn [number], call +[number]')
  t.equal(scrubLogText('mail jane.doe+x@mail.example.co.uk or josé@exämple.de'), 'mail [email] or [email]')
  t.equal(scrubLogText('from 10.0.0.12 and 192.168.1.1'), 'from [ip] and [ip]')
  t.equal(scrubLogText('Incorrect API key provided: sk-proj-abcd1234efgh'), 'Incorrect API key provided: [key]')
  t.equal(scrubLogText('token eyJhbGciOiJIUzI1NiJ9abc and ghp_A1b2C3d4E5f6G7h8I9j0'), 'token [token] and [token]')
  t.equal(scrubLogText('maxTokens 4096 over the limit of 16384'), 'maxTokens 4096 over the limit of 16384', 'short numbers stay')
})

t.test('the result is capped', async (t) => {
  const long = scrubLogText('word '.repeat(1000))
  t.equal(long.length, 201)
  t.match(long, /…$/)
})

t.test('a logged error keeps its class, status, codes and frames, with its message and causes scrubbed', async (t) => {
  const cause = Object.assign(new Error('connect ECONNREFUSED for jane@example.com'), { code: 'ECONNREFUSED' })
  const err = new UpstreamError('openai answered 400: "secret prompt"', false, {
    cause,
    provider: { status: 400, type: 'invalid_request_error', code: 'invalid_value' },
  })
  const logged = logError(err)
  t.match(logged, {
    type: 'UpstreamError',
    status: 502,
    code: 'upstream_error',
    message: 'openai answered 400: [quoted]',
    provider: { status: 400, type: 'invalid_request_error', code: 'invalid_value' },
    cause: { type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED for [email]' },
  })
  t.match(logged['stack'], /^\s+at /)
  t.notOk(JSON.stringify(logged).includes('secret prompt'), "the stack's message line is not kept")
  t.same(logError('a thrown "string"'), { type: 'string', message: 'a thrown [quoted]' })
})

t.test("spans repeating the request's texts go before the rest is scrubbed, quoted or not", async (t) => {
  const texts = ['You are a helpful assistant.', 'Write to Margaret Okonkwo at margaret@example.com about the invoice']
  t.equal(scrubLogText(`could not process Write to Margaret Okonkwo at margaret@example.com`, texts), 'could not process [echoed]')
  t.equal(scrubLogText(`Invalid value: "${texts[1]}"`, texts), 'Invalid value: [quoted]')
  t.equal(
    scrubLogText('could not process Write to Margaret Okonkwo'),
    'could not process Write to Margaret Okonkwo',
    'without the texts, an unquoted echo cannot be told',
  )
  const err = new UpstreamError('openai answered 400: could not process Write to Margaret Okonkwo', false, { cause: new Error(`bad body: ${texts[1]}`) })
  t.match(logError(err, texts), { message: 'openai answered 400: could not process [echoed]', cause: { message: 'bad body: [echoed]' } }, 'causes too')
})
