// Settlements written to an append-only file before the answer is sent, so the answer does not
// wait for the ledger's commit (an LMDB commit synced to disk: about 0.7 ms alone, several under
// load). A line written with write(2) is in the kernel once the call returns, so it survives a
// kill -9 of the process; the ledger commits it in the background, and a restart replays the
// files of a process that died before its commits. A power loss may lose the last few
// milliseconds of lines, where LMDB alone would have kept them (see docs/budgets-and-metering.md).
// A stream's first checkpoint (its prompt) is journaled the same way as it is admitted, in its
// turn's write when that has settlements, so that a crash at any moment of the stream settles it
// to at least that (see ledger.ts, startStreams).
//
// The settlements of one turn of the event loop share one write: a write(2) costs about as much
// for one line as for many (some 10 µs under load, a few per cent of a request), and the answers
// settled in a turn come from that turn's I/O callbacks. Each answer waits for the write before
// it is rendered, so no charged answer leaves before its line is in the kernel.
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import type { LeasedHold, LedgerEntry } from '../records.ts'

export interface JournalLine {
  readonly entry: LedgerEntry
  readonly limitMicros: number
  /** Its hold is a reservation of its own in the store, keyed by the request id. */
  readonly heldInStore: boolean
  /** Its hold was carved from its process's budget lease (../leases.ts), which shrinks by it as it settles. */
  readonly leased?: LeasedHold
  readonly checkpointed: boolean
  /** A stream's first checkpoint, not a settlement: applied only where nothing else settled the stream. */
  readonly started?: true
}

/** The file a line went to; tell the journal once that line is committed (once per line). */
export interface JournalMark {
  readonly file: JournalFile
}

interface JournalFile {
  readonly path: string
  readonly fd: number
  bytes: number
  /** Lines written and not yet committed to the ledger. */
  pending: number
}

export interface SettlementJournal {
  /** Writes the lines with one write; throws when it cannot. */
  appendAll(lines: readonly JournalLine[]): JournalMark
  /**
   * Queues the line for this turn's one write, made once the turn's I/O callbacks have run;
   * `written` is then called with its mark, or undefined when the write failed, and `item`. The
   * promise, one for the turn's lines, resolves then with whether the write succeeded.
   */
  appendInTurn<T>(line: JournalLine, written: (mark: JournalMark | undefined, item: T) => void, item: T): Promise<boolean>
  /** Resolves once every line queued so far is written (or failed). */
  turnWritten(): Promise<unknown>
  /** Lines are queued for a write this turn: one appended now goes with them. */
  turnPending(): boolean
  committed(mark: JournalMark): void
  close(): void
}

// A file is replaced once it holds this much, and removed once all its lines are committed.
const ROTATE_BYTES = 1 << 20
const PREFIX = 'settlements-'
const SUFFIX = '.jsonl'

/** Owners are `pid:uuid`; a file name cannot hold the colon everywhere. */
const fileNameOf = (owner: string, generation: number) => `${PREFIX}${owner.replace(':', '_')}-${generation}${SUFFIX}`
const ownerOf = (name: string) => name.slice(PREFIX.length, name.lastIndexOf('-')).replace('_', ':')

export function openJournal(directory: string, owner: string): SettlementJournal {
  let generation = 0
  let current: JournalFile | undefined

  function startFile(): JournalFile {
    mkdirSync(directory, { recursive: true })
    const path = join(directory, fileNameOf(owner, generation++))
    return { path, fd: openSync(path, 'a'), bytes: 0, pending: 0 }
  }

  function retire(file: JournalFile): void {
    closeSync(file.fd)
    unlinkSync(file.path)
  }

  function fileToWrite(): JournalFile {
    if (current === undefined || current.bytes >= ROTATE_BYTES) {
      const previous = current
      current = startFile()
      if (previous !== undefined && previous.pending === 0) retire(previous)
    }
    return current
  }

  // The turn's lines, encoded as each is appended into one buffer kept from turn to turn: no
  // text joined up, flattened and encoded again for the write. Its callbacks and their items, side
  // by side: no closure per line.
  let turnBytes = Buffer.allocUnsafe(1 << 16)
  let turnLength = 0
  let turnWaiters: Array<(mark: JournalMark | undefined, item: never) => void> = []
  let turnItems: unknown[] = []
  let turnWrite: NodeJS.Immediate | undefined
  let turnDone: Promise<boolean> | undefined
  let endTurn: ((ok: boolean) => void) | undefined

  function appendToTurn(text: string): void {
    // UTF-8 takes at most three bytes per UTF-16 unit, and the newline one.
    const most = turnLength + text.length * 3 + 1
    if (most > turnBytes.length) {
      const larger = Buffer.allocUnsafe(Math.max(most, turnBytes.length * 2))
      turnBytes.copy(larger, 0, 0, turnLength)
      turnBytes = larger
    }
    turnLength += turnBytes.write(text, turnLength)
    turnBytes[turnLength++] = 0x0a
  }

  function writeTurn(): void {
    const length = turnLength
    const waiters = turnWaiters
    const items = turnItems
    const done = endTurn
    turnLength = 0
    turnWaiters = []
    turnItems = []
    turnWrite = turnDone = endTurn = undefined
    let mark: JournalMark | undefined
    try {
      const file = fileToWrite()
      file.bytes += writeSync(file.fd, turnBytes, 0, length)
      file.pending += waiters.length
      mark = { file }
    } catch {
      mark = undefined
    }
    for (let i = 0; i < waiters.length; i++) waiters[i]!(mark, items[i] as never)
    done!(mark !== undefined)
  }

  return {
    appendAll(lines) {
      let text = ''
      for (const line of lines) text += `${JSON.stringify(line)}\n`
      const file = fileToWrite()
      file.bytes += writeSync(file.fd, text)
      file.pending += lines.length
      return { file }
    },
    appendInTurn(line, written, item) {
      // setImmediate runs once the poll phase's callbacks (and their promise callbacks) are done.
      if (turnWrite === undefined) {
        turnWrite = setImmediate(writeTurn)
        turnDone = new Promise((resolve) => {
          endTurn = resolve
        })
      }
      appendToTurn(JSON.stringify(line))
      turnWaiters.push(written)
      turnItems.push(item)
      return turnDone!
    },
    turnWritten() {
      return turnDone ?? Promise.resolve()
    },
    turnPending: () => turnWrite !== undefined,
    committed({ file }) {
      file.pending--
      if (file.pending === 0 && file !== current) retire(file)
    },
    close() {
      if (turnWrite !== undefined) {
        clearImmediate(turnWrite)
        writeTurn()
      }
      // Only a file whose every line is committed goes; the others are replayed at the next start.
      if (current !== undefined && current.pending === 0) retire(current)
      current = undefined
    },
  }
}

const lineSchema = z.object({
  entry: z.looseObject({
    id: z.string().min(1),
    projectId: z.string(),
    keyId: z.string(),
    at: z.string(),
    month: z.string(),
    day: z.string(),
    provider: z.string(),
    model: z.string(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    costMicros: z.number(),
    cacheHit: z.boolean(),
    outcome: z.string(),
  }),
  limitMicros: z.number(),
  heldInStore: z.boolean(),
  leased: z.object({ month: z.string(), micros: z.number() }).optional(),
  checkpointed: z.boolean(),
  started: z.literal(true).optional(),
})

export interface DeadJournal {
  readonly path: string
  /** The process that wrote it. */
  readonly owner: string
  readonly lines: readonly JournalLine[]
  /** Lines that could not be read: the last one, cut by the crash mid-write, or damage. */
  readonly unreadable: number
}

/** The journals of processes that are gone, read whole; remove each once its lines are applied. */
export function deadJournals(directory: string, isLive: (owner: string) => boolean): DeadJournal[] {
  let names: string[]
  try {
    names = readdirSync(directory)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const found: DeadJournal[] = []
  for (const name of names) {
    if (!name.startsWith(PREFIX) || !name.endsWith(SUFFIX) || isLive(ownerOf(name))) continue
    const path = join(directory, name)
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch (err) {
      // Another process starting at the same moment replayed and removed it first.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw err
    }
    const lines: JournalLine[] = []
    let unreadable = 0
    for (const raw of text.split('\n')) {
      if (raw === '') continue
      const parsed = lineSchema.safeParse(safeJson(raw))
      if (parsed.success) lines.push(parsed.data as unknown as JournalLine)
      else unreadable++
    }
    found.push({ path, owner: ownerOf(name), lines, unreadable })
  }
  return found
}

export function removeJournal(path: string): void {
  try {
    unlinkSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}
