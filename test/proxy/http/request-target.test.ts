import { deepStrictEqual } from 'node:assert/strict'
import t from 'tap'
import fc from 'fast-check'
import { requestTarget } from '../../../proxy/http/request-target.ts'

function byUrlParser(raw: string) {
  if (!URL.canParse(raw, 'http://gateway')) return { path: raw, query: [] }
  const url = new URL(raw, 'http://gateway')
  return { path: url.pathname, query: [...url.searchParams] }
}

const seen = (raw: string) => {
  const target = requestTarget(raw)
  return { path: target.path, query: [...target.query] }
}

t.test('plain targets split into path and query parameters', async (t) => {
  t.same(seen('/api/usage?projectId=p1&period=day'), {
    path: '/api/usage',
    query: [
      ['projectId', 'p1'],
      ['period', 'day'],
    ],
  })
  t.same(seen('/openapi.json'), { path: '/openapi.json', query: [] })
  t.same(seen('/api/usage?q=a+b%20c&q=2'), {
    path: '/api/usage',
    query: [
      ['q', 'a b c'],
      ['q', '2'],
    ],
  })
})

t.test('targets the URL parser would rewrite are read as it reads them', async (t) => {
  t.same(seen('/api/../api/usage'), { path: '/api/usage', query: [] })
  t.same(seen('/api/./health'), { path: '/api/health', query: [] })
  t.same(seen('/api/%7Eme'), byUrlParser('/api/%7Eme'))
  t.same(seen('/api\\health'), { path: '/api/health', query: [] })
  t.same(seen('/api/usage?a=1#b=2'), { path: '/api/usage', query: [['a', '1']] })
  t.same(seen('http://example.com/x?y=1'), { path: '/x', query: [['y', '1']] })
  t.same(seen('//host/x'), byUrlParser('//host/x'))
  t.same(seen('//'), { path: '//', query: [] }, 'unparsable: a path no route has')
})

t.test('any target reads the same as through the URL parser', async (t) => {
  const piece = fc.constantFrom(
    '/',
    '.',
    '..',
    '%',
    '%2e',
    '%zz',
    '?',
    '&',
    '=',
    '#',
    '+',
    ' ',
    '\\',
    'a',
    'Z',
    '9',
    '-',
    '_',
    '~',
    'é',
    'ÿ',
    '😀',
    ':',
    '@',
    ';',
    '\t',
    '\x7f',
    '\x00',
  )
  const target = fc.array(piece, { maxLength: 24 }).map((parts) => `/${parts.join('')}`)
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(target, (raw) => deepStrictEqual(seen(raw), byUrlParser(raw))),
      { numRuns: 3000 },
    ),
  )
})
