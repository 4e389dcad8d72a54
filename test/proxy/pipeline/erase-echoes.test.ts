import t from 'tap'
import { ECHO_MIN_CHARS, echoedChars, eraseEchoes } from '../../../proxy/pipeline/erase-echoes.ts'

const PROMPT = 'Please write a birthday card for Margaret Okonkwo-Lindqvist from the purple elephant club'

t.test("an echo of the request, quoted or not, goes; the message's own words stay", async (t) => {
  t.equal(eraseEchoes(`could not process ${PROMPT}`, [PROMPT], '[echoed]'), 'could not process [echoed]')
  t.equal(eraseEchoes(`Input "${PROMPT}" is not valid`, ['first message', PROMPT], '[echoed]'), 'Input "[echoed]" is not valid')
  t.equal(
    eraseEchoes(`The input ${PROMPT.slice(18, 60).trim()} violates our usage policy.`, [PROMPT], '[echoed]'),
    'The input [echoed] violates our usage policy.',
    'a span cut inside words takes those words whole',
  )
  t.equal(eraseEchoes('bad: MARGARET  OKONKWO-LINDQVIST\nfrom the purple', [PROMPT], '[echoed]'), 'bad: [echoed]', 'case and white space do not hide an echo')
  t.equal(eraseEchoes(`a ${PROMPT.slice(0, 20)} and b ${PROMPT.slice(40, 70)} end`, [PROMPT], '[echoed]'), 'a [echoed] and b [echoed] end')
})

t.test('runs shorter than the minimum are ordinary vocabulary and stay', async (t) => {
  const prompt = 'Why is my JSON not valid? What is the maximum length of a context, in tokens?'
  const message = "This model's maximum context length is 8192 tokens; the input is not valid."
  t.equal(eraseEchoes(message, [prompt], '[echoed]'), message)
  t.equal(
    eraseEchoes(message, ['Why does it say the context length is too long?'], '[echoed]'),
    "This model's maximum [echoed] 8192 tokens; the input is not valid.",
    "a prompt that holds as many characters of the message's own wording takes them with it",
  )
  t.equal(eraseEchoes('for Margaret', [PROMPT], '[echoed]'), 'for Margaret', `${'for Margaret'.length} characters, under ${ECHO_MIN_CHARS}`)
  t.equal(eraseEchoes('day card for Margaret', [PROMPT], '[echoed]'), '[echoed]', `${ECHO_MIN_CHARS} or more characters`)
  t.equal(eraseEchoes('short', [PROMPT], '[echoed]'), 'short')
  t.equal(eraseEchoes(`could not process ${PROMPT}`, [], '[echoed]'), `could not process ${PROMPT}`, 'no texts, nothing to erase')
})

t.test('work stays linear in the request: a 1 MB prompt against a 2,000-character message', async (t) => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa', 'lambda', 'sigma']
  let prompt = ''
  for (let i = 0; prompt.length < 1_000_000; i = (i * 7 + 3) % 101) prompt += `${words[i % words.length]} `
  const cases = [
    { name: 'an echo from the middle', message: `Error: ${prompt.slice(500_000, 501_990)}`, prompt },
    { name: 'no echo', message: 'x'.repeat(2000), prompt },
    { name: 'one character repeated on both sides', message: 'a'.repeat(2000), prompt: 'a'.repeat(1_000_000) },
  ]
  for (const { name, message, prompt } of cases) {
    const started = performance.now()
    echoedChars(message, [prompt])
    // A quadratic pass (2,000 × 1,000,000 comparisons) takes tens of seconds; a linear one some
    // tens of milliseconds, so this holds on a loaded machine and fails on the quadratic one.
    t.ok(performance.now() - started < 3000, `${name}: ${Math.round(performance.now() - started)} ms`)
  }
  t.equal(eraseEchoes(`Error: ${prompt.slice(500_000, 501_990)}`, [prompt], '[echoed]'), 'Error: [echoed]')
})
