import t from 'tap'
import { sampleOf } from '../../../plugins/router/providers/schema-sample.ts'

t.test('fills every property of an object by its type', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      count: { type: 'integer' },
      ratio: { type: 'number', maximum: 0.5 },
      on: { type: 'boolean' },
      none: { type: 'null' },
      list: { type: 'array', items: { type: 'integer', minimum: 3 } },
      empty: { type: 'array', maxItems: 0 },
      maybe: { type: ['null', 'string'] },
      nested: { properties: { deep: { type: 'string', minLength: 8 } } },
    },
  }
  t.same(sampleOf(schema, 'text'), {
    name: 'text',
    count: 1,
    ratio: 0.5,
    on: true,
    none: null,
    list: [3],
    empty: [],
    maybe: 'text',
    nested: { deep: 'textxxxx' },
  })
})

t.test('takes const, the first enum value and the first option of anyOf, oneOf and allOf', async (t) => {
  t.equal(sampleOf({ const: 'fixed' }, 'x'), 'fixed')
  t.equal(sampleOf({ type: 'string', enum: ['red', 'green'] }, 'x'), 'red')
  t.equal(sampleOf({ anyOf: [{ type: 'integer' }, { type: 'string' }] }, 'x'), 1)
  t.equal(sampleOf({ oneOf: [{ type: 'boolean' }] }, 'x'), true)
  t.same(sampleOf({ allOf: [{ type: 'object', properties: { a: { type: 'string' } } }] }, 'x'), { a: 'x' })
})

t.test('follows local $refs and ends recursive schemas', async (t) => {
  const schema = {
    type: 'object',
    properties: { item: { $ref: '#/$defs/Item' } },
    $defs: { Item: { type: 'object', properties: { label: { type: 'string', format: 'email' }, child: { $ref: '#/$defs/Item' } } } },
  }
  const value = sampleOf(schema, 'x') as { item: { label: string; child: unknown } }
  t.equal(value.item.label, 'user@example.com')
  let depth = 0
  for (let node: any = value.item; node !== null && typeof node === 'object'; node = node.child) depth++
  t.ok(depth > 1 && depth < 10, `stops after ${depth} levels`)
})
