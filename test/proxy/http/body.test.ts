import t from 'tap'
import fc from 'fast-check'
import { jsonDepth, parseJsonBody } from '../../../proxy/http/body.ts'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'

function caught(fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    return err
  }
  return undefined
}

t.test('jsonDepth counts nesting outside strings only', async (t) => {
  t.equal(jsonDepth('{"a":[1,{"b":2}]}', 100), 3)
  t.equal(jsonDepth('{"a":"[[[[{{{{"}', 100), 1)
  t.equal(jsonDepth('{"a":"\\"[[["}', 100), 1)
  t.equal(jsonDepth('42', 100), 0)
})

t.test('jsonDepth agrees with the real nesting of any JSON value', async (t) => {
  const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depthOf)) : 0)
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => jsonDepth(JSON.stringify(value), 1000) === depthOf(value)))
})

t.test('parseJsonBody rejects bodies nested deeper than the limit', async (t) => {
  const deep = '['.repeat(100) + ']'.repeat(100)
  t.match(
    caught(() => parseJsonBody(Buffer.from(deep), 64)),
    { status: 400, error: 'Invalid JSON body', message: 'The body nests deeper than 64 levels.' },
  )
})

t.test('parseJsonBody rejects __proto__ keys, also when escaped', async (t) => {
  t.match(
    caught(() => parseJsonBody(Buffer.from('{"__proto__":{"x":1}}'), 64)),
    { error: 'Invalid JSON body' },
  )
  t.match(
    caught(() => parseJsonBody(Buffer.from('{"\\u005f_proto__":{"x":1}}'), 64)),
    { error: 'Invalid JSON body' },
  )
})

t.test('parseJsonBody turns malformed JSON and empty bodies into 400s', async (t) => {
  t.match(
    caught(() => parseJsonBody(Buffer.from('{"a":'), 64)),
    { status: 400, error: 'Malformed JSON' },
  )
  t.match(
    caught(() => parseJsonBody(Buffer.from('  '), 64)),
    { status: 400, error: 'Missing request body' },
  )
})

t.test('parseJsonBody never throws anything but a 400 on arbitrary text', async (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (text) => {
      try {
        parseJsonBody(Buffer.from(text), 64)
        return true
      } catch (err) {
        return err instanceof InvalidRequestError
      }
    }),
  )
})
