import t from 'tap'
import { requestId } from '../../proxy/request-id.ts'

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('a request id is a UUIDv7 carrying the milliseconds it was made at', async (t) => {
  const at = Date.UTC(2026, 10, 21, 12, 30, 15, 123)
  const id = requestId(at)
  t.match(id, V7)
  t.equal(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16), at)
})

t.test('ids made later sort after earlier ones, and no two are alike', async (t) => {
  const ids = Array.from({ length: 5000 }, (_, i) => requestId(1_700_000_000_000 + Math.floor(i / 10)))
  t.equal(new Set(ids).size, ids.length)
  const outOfOrder = ids.filter((id, i) => i % 10 === 0 && i > 0 && !(ids[i - 1]! < id))
  t.same(outOfOrder, [], 'each millisecond starts after the one before')
  t.same(ids.filter((id) => !V7.test(id)), [], 'all are UUIDv7')
})
