import t from 'tap'
import { leadingWords } from '../../../workers/scan/leading-words.ts'

t.test('reads the words every match starts with off a pattern, or says it cannot', async (t) => {
  t.same(leadingWords('\\b(?:ignore|disregard)\\s+x'), ['ignore', 'disregard'])
  t.same(leadingWords('\\bjailbr(?:ea|o)k|\\bdeveloper\\s+mode'), ['jailbr', 'developer'])
  t.same(leadingWords('(?:\\byour\\s+rules|\\bsystem\\s+prompt)'), ['your', 'system'])
  t.same(leadingWords('\\bprompts?\\b'), ['prompt'], 'an optional last letter is left off')
  t.same(leadingWords('\\b(?i:you\\s+are|be)\\s+[A-Z]'), ['you', 'be'], 'a group that ignores case')
  t.equal(leadingWords('(?:^|\\n)\\s*system:'), undefined, 'no word to anchor on: the pattern runs everywhere')
  t.equal(leadingWords('\\b(?:the\\s+)?user'), undefined, 'an optional first word')
  t.equal(leadingWords('describing\\.\\s+x'), undefined, 'no word boundary before the word')
  t.equal(leadingWords('\\bi[\'’]?m'), undefined, 'a one-letter word')
})
