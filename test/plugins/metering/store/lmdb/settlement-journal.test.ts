import { join } from 'node:path'
import t from 'tap'
import { deadJournals, openJournal, type JournalLine } from '../../../../../plugins/metering/store/lmdb/settlement-journal.ts'
import { freshDataDir } from '../../../../helpers/start-gateway.ts'
import { entry } from '../fixtures.ts'

t.test("a turn's lines, many and far from ASCII, are read back as they were written", async (t) => {
  const directory = join(freshDataDir(t), 'metering')
  const journal = openJournal(directory, '999995:gone')
  // Some 400 KB in one turn, of characters one to four bytes long in UTF-8.
  const lines: JournalLine[] = Array.from({ length: 200 }, (_, i) => ({
    entry: { ...entry(`r${i}`, i), user: `ü€😀-${i}-`.repeat(100) },
    limitMicros: 10_000,
    heldInStore: false,
    checkpointed: false,
  }))
  const told: Array<[number, boolean]> = []
  const tell = (mark: unknown, i: number) => told.push([i, mark !== undefined])
  let written: Promise<boolean> | undefined
  for (const [i, line] of lines.entries()) written = journal.appendInTurn(line, tell, i)
  t.equal(await written, true)
  t.same(
    told,
    lines.map((_, i) => [i, true]),
    'each line told once, in order, that it was written',
  )
  const [found] = deadJournals(directory, () => false)
  t.equal(found?.unreadable, 0)
  t.same(found?.lines, lines)
})
