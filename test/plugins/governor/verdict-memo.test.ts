// The in-process verdict memo: bounded, least recently used out first, keyed without content.
import t from 'tap'
import { VerdictMemo, verdictKey } from '../../../plugins/governor/verdict-memo.ts'

t.test('keeps at most its capacity and drops the least recently used entry', async (t) => {
  const memo = new VerdictMemo<number>(2)
  memo.set('a', 1)
  memo.set('b', 2)
  t.equal(memo.get('a'), 1)
  memo.set('c', 3)
  t.equal(memo.size, 2)
  t.equal(memo.get('b'), undefined, 'b was the least recently used')
  t.equal(memo.get('a'), 1)
  t.equal(memo.get('c'), 3)
})

t.test('a capacity of 0 remembers nothing', async (t) => {
  const memo = new VerdictMemo<number>(0)
  memo.set('a', 1)
  t.equal(memo.get('a'), undefined)
})

t.test('the key changes with content, project, settings version and the metadata the verdict reads, and holds no content', async (t) => {
  const metadata = { actionType: 'hr_message', senderId: 'a' } as const
  const key = verdictKey('proj_1', 1, metadata, ['secret text'])
  t.not(verdictKey('proj_1', 1, metadata, ['secret text!']), key)
  t.not(verdictKey('proj_2', 1, metadata, ['secret text']), key)
  t.not(verdictKey('proj_1', 2, metadata, ['secret text']), key)
  t.not(verdictKey('proj_1', 1, { ...metadata, department: 'Sales' }, ['secret text']), key)
  t.not(verdictKey('proj_1', 1, metadata, ['secret', ' text']), key, 'message boundaries count')
  t.equal(verdictKey('proj_1', 1, { ...metadata, senderId: 'b' }, ['secret text']), key, 'the sender id does not change the verdict')
  t.notMatch(key, /secret/)
})
