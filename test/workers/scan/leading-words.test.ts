import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import t from 'tap'
import { leadingWords } from '../../../workers/scan/leading-words.ts'
import { SIGNAL_PATTERNS } from '../../../workers/scan/prompt-injection.ts'

t.test('reads the words every match starts with off a pattern, or says it cannot', async (t) => {
  t.same(leadingWords('\\b(?:ignore|disregard)\\s+x'), ['ignore', 'disregard'])
  t.same(leadingWords('\\bjailbr(?:ea|o)k|\\bdeveloper\\s+mode'), ['jailbr', 'developer'])
  t.same(leadingWords('(?:\\byour\\s+rules|\\bsystem\\s+prompt)'), ['your', 'system'])
  t.same(leadingWords('\\bprompts?\\b'), ['prompt'], 'an optional last letter is left off')
  t.same(leadingWords('\\b(?i:you\\s+are|be)\\s+[A-Z]'), ['you', 'be'], 'a group that ignores case')
  t.equal(leadingWords('(?:^|\\n)\\s*system:'), undefined, 'no word to anchor on: the pattern runs everywhere')
  t.equal(leadingWords('\\b(?:the\\s+)?user'), undefined, 'an optional first word')
  t.equal(leadingWords('describing\\.\\s+x'), undefined, 'no word boundary before the word')
  t.equal(leadingWords("\\bi['’]?m"), undefined, 'a one-letter word')
  t.same(leadingWords('\\b(?:(?<!\\bno\\s)(?:olvida|ignora)|haz\\s+caso)'), ['olvida', 'ignora', 'haz'], 'a lookbehind looks before the word')
  t.same(leadingWords('\\b(?:révèle|répète)\\s'), ['révèle', 'répète'], 'accented letters after the first')
  t.equal(leadingWords('\\büber\\s'), undefined, 'a word that starts with an accented letter: \\b does not see its start')
})

// The detector tries a signal only where one of its leading words starts: a word read off wrong
// would make it miss every match that starts elsewhere.
t.test('every match of every prompt-injection signal starts with a word read off its pattern', async (t) => {
  const read = SIGNAL_PATTERNS.flatMap((pattern) => {
    const words = leadingWords(pattern.source)
    return words === undefined ? [] : [{ pattern, words }]
  })
  /** How many matches `sample` has, or -1 when one starts with none of its pattern's words. */
  function matchesIn(sample: string): number {
    const lower = sample.toLowerCase()
    let count = 0
    for (const { pattern, words } of read) {
      for (const m of sample.matchAll(new RegExp(pattern.source, pattern.flags))) {
        if (!words.some((word) => lower.startsWith(word, m.index))) return -1
        count++
      }
    }
    return count
  }
  const attacks = readFileSync(new URL('../../../eval/data/prompt-injection-families.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { text: string }).text)
  const found = attacks.map(matchesIn)
  t.notOk(found.includes(-1), 'on the hand-written attacks and near misses')
  t.ok(found.reduce((a, b) => a + b, 0) > 200, 'which match signals often')

  const vocabulary = [...new Set(read.flatMap(({ words }) => words))]
  const piece = fc.oneof(fc.constantFrom(...vocabulary), fc.constantFrom('now', 'all', 'not', 'Rules', 'instructions', 'the', 'you', 'x', 'DAN'))
  const gap = fc.constantFrom(' ', '  ', '\n', "'", '’', ', ', '', 's ', 'ing ', '\t')
  const text = fc.array(fc.tuple(piece, gap), { maxLength: 12 }).map((parts) => parts.map(([w, g]) => w + g).join(''))
  fc.assert(
    fc.property(text, (sample) => matchesIn(sample) >= 0),
    { numRuns: 300 },
  )
})
