// Trying a custom rule on a sample text before it is saved: the places it matches, found exactly
// as request-time matching finds them; a rule that could not be saved is refused with the reason.
import t from 'tap'
import { findRuleSpans } from '../../../plugins/governor/logic/verdict/custom-rules.ts'
import { call } from '../../helpers/http.ts'
import { governedGateway } from './fixtures.ts'

t.test('keywords match without regard to case; regexes with the rule flags; zero-width matches advance', async (t) => {
  t.same(findRuleSpans({ pattern: 'Falcon', regex: false }, 'falcon, FALCON and Falconry'), [
    { start: 0, end: 6 },
    { start: 8, end: 14 },
    { start: 19, end: 25 },
  ])
  t.same(findRuleSpans({ pattern: '\\bfalcon\\b', regex: true }, 'falcon, FALCON and Falconry'), [
    { start: 0, end: 6 },
    { start: 8, end: 14 },
  ])
  t.same(findRuleSpans({ pattern: '\\d{4}', regex: true }, 'no digits'), [])
  t.same(findRuleSpans({ pattern: 'a', regex: false }, 'a'.repeat(500)).length, 100, 'at most 100 places, like the count at request time')
  t.same(findRuleSpans({ pattern: '(?=x)x', regex: true }, 'xx'), [
    { start: 0, end: 1 },
    { start: 1, end: 2 },
  ])
})

t.test('POST /api/governor/rules/test answers the matches and stores nothing', async (t) => {
  const gw = await governedGateway(t)
  const tried = await call(`${gw.url}/api/governor/rules/test`, {
    key: gw.sk,
    body: { pattern: 'order\\s+\\d+', regex: true, text: 'Order 12 and order  34.' },
  })
  t.equal(tried.status, 200)
  t.same(tried.body, {
    matched: true,
    count: 2,
    matches: [
      { start: 0, end: 8, text: 'Order 12' },
      { start: 13, end: 22, text: 'order  34' },
    ],
  })
  t.same((await call(`${gw.url}/api/governor/rules/test`, { key: gw.pk, body: { pattern: 'absent', text: 'nothing here' } })).body, {
    matched: false,
    count: 0,
    matches: [],
  })
  t.same((await call(`${gw.url}/api/compliance/policies`, { key: gw.pk })).body.data, [], 'no rule was saved')

  const unsafe = await call(`${gw.url}/api/governor/rules/test`, { key: gw.sk, body: { pattern: '(a+)+$', regex: true, text: 'aaaa' } })
  t.equal(unsafe.status, 400)
  t.match(unsafe.body.error, /pattern: .*repeated group/)
  const bad = await call(`${gw.url}/api/governor/rules/test`, { key: gw.sk, body: { pattern: 'x', text: 'y', extra: true } })
  t.equal(bad.status, 400)
  t.equal((await call(`${gw.url}/api/governor/rules/test`, { key: gw.sk, body: { pattern: 'x', text: 'y'.repeat(100_001) } })).status, 400)
})
