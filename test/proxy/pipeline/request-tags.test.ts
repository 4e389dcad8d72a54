// The x-gateway-tags header: a plain, bounded list, or a 400 that says what is wrong.
import t from 'tap'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import { MAX_TAG_LENGTH, MAX_TAGS, tagsOf } from '../../../proxy/pipeline/request-tags.ts'

const refusal = (value: string | string[]) => {
  try {
    tagsOf({ 'x-gateway-tags': value })
  } catch (err) {
    return err
  }
  return undefined
}

t.test('tags are trimmed, kept once each, in order; empty items are skipped', async (t) => {
  t.equal(tagsOf({}), undefined)
  t.equal(tagsOf({ 'x-gateway-tags': ' , ' }), undefined)
  t.same(tagsOf({ 'x-gateway-tags': ' team:search , env=prod,team:search,,a/b@c+d-e_f.g ' }), ['team:search', 'env=prod', 'a/b@c+d-e_f.g'])
  t.same(tagsOf({ 'x-gateway-tags': ['a', 'b'] }), ['a', 'b'], 'a repeated header is one list')
  t.same(tagsOf({ 'x-gateway-tags': Array.from({ length: MAX_TAGS }, (_, i) => `t${i}`).join(',') })?.length, MAX_TAGS)
})

t.test('hostile values are refused with a 400 that names the rule', async (t) => {
  for (const [value, message] of [
    ['a b', /only letters, digits/],
    ['<script>', /only letters, digits/],
    ['ünïcode', /only letters, digits/],
    ['a\u0000b', /only letters, digits/],
    ['x'.repeat(MAX_TAG_LENGTH + 1), /at most 64 characters/],
    [Array.from({ length: MAX_TAGS + 1 }, (_, i) => `t${i}`).join(','), /at most 10 tags/],
    [','.repeat(10_000), /too long/],
  ] as const) {
    const err = refusal(value)
    t.ok(err instanceof InvalidRequestError && err.status === 400, JSON.stringify(value).slice(0, 20))
    t.match((err as InvalidRequestError).message, message)
    t.notMatch((err as InvalidRequestError).message, value.length > 3 ? value : /^$/, 'the value is not echoed')
  }
})
