import t from 'tap'
import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import { canonicalJson } from '../../../proxy/kit/canonical-json.ts'

const reversed = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(reversed)
    : typeof v === 'object' && v !== null
      ? Object.fromEntries(
          Object.keys(v)
            .reverse()
            .map((k) => [k, reversed((v as Record<string, unknown>)[k])]),
        )
      : v

t.test('canonical JSON denotes the same value, whatever order its objects were built in', async () => {
  const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown)
  fc.assert(
    fc.property(json, (value) => {
      const text = canonicalJson(value)
      return text === canonicalJson(reversed(value)) && isDeepStrictEqual(JSON.parse(text), value)
    }),
  )
})

t.test('it keeps what JSON.stringify keeps: undefined members are left out, undefined items are null', async (t) => {
  t.equal(canonicalJson({ b: [1, undefined, 'x'], a: undefined, c: { z: null, y: -0 } }), '{"b":[1,null,"x"],"c":{"y":0,"z":null}}')
})

t.test('a value with no JSON form is refused, never hashed as something else', async (t) => {
  t.throws(() => canonicalJson(undefined), TypeError)
  t.throws(() => canonicalJson({ a: () => 1 }), TypeError)
  t.throws(() => canonicalJson([Symbol('s')]), TypeError)
  t.throws(() => canonicalJson({ n: 1n }), TypeError)
})
