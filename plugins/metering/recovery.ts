// Cleaning up after what stopped processes left (their holds, streams and journaled charges): at
// start and, where several gateways share the store, every recoverEveryMs while this one runs, so
// one that dies is cleaned up after by the others. What was settled is logged, never its content.
import type { Logger } from 'pino'
import type { MeteringStore, Recovered } from './store/index.ts'

/** Recovers once, then keeps recovering where the store asks to; resolves with the function that stops it. */
export async function keepRecovering(ledger: MeteringStore, log: Logger): Promise<() => void> {
  const noteRecovered = ({ released, recovered, replayed, unreadable }: Recovered) => {
    if (released > 0 || recovered > 0 || replayed > 0)
      log.warn(
        { replayed, released, recovered },
        'settled what a stopped process left: journaled charges committed, streams to their last checkpoint, other holds released',
      )
    if (unreadable > 0) log.error({ unreadable }, 'journal lines of a stopped process could not be read (a line cut by a crash mid-write, or damage)')
  }
  noteRecovered(await ledger.recover())
  const sweeps =
    ledger.recoverEveryMs === undefined
      ? undefined
      : setInterval(() => {
          ledger
            .recover()
            .then(noteRecovered, (err: unknown) => log.warn({ err }, 'metering could not renew its lease or release the holds of stopped gateways'))
        }, ledger.recoverEveryMs)
  sweeps?.unref()
  return () => clearInterval(sweeps)
}
