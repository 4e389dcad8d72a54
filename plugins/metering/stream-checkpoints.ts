// Running streams' progress, recorded so that a crash settles a stream to what it generated
// instead of releasing it free. A stream's first checkpoint, its prompt, is recorded as it is
// admitted, together with those of every stream admitted in the same turn of the event loop: even
// a stream far shorter than the interval is then charged at least the prompt the provider was
// sent. After that, each running stream's new text is counted and written every interval, all
// streams in one transaction, one pass at a time so that no text is counted twice.
import type { RequestContext } from '../../proxy/pipeline/context.ts'
import type { StreamCheckpoint } from './store/records.ts'

interface StreamCheckpointsOptions {
  readonly intervalMs: number
  /** Token counts of the texts, in order; a promise when some are counted in the worker pool. */
  readonly count: (texts: readonly string[]) => number[] | Promise<number[]>
  /** The stream's checkpoint, `completionTokens` generated so far. */
  readonly checkpointOf: (ctx: RequestContext, completionTokens: number) => StreamCheckpoint
  /** Records streams' first checkpoints (store/index.ts, startStreams). */
  readonly start: (progress: readonly StreamCheckpoint[]) => Promise<void>
  /** Records streams' progress (store/index.ts, checkpoint). */
  readonly write: (progress: readonly StreamCheckpoint[]) => Promise<void>
  /** Shutdown waits for what it is given, and a failure is logged. */
  readonly track: (work: Promise<unknown>) => void
}

interface StreamCheckpoints {
  /** The stream was admitted: its first checkpoint is recorded as the turn ends. */
  follow(ctx: RequestContext): void
  /** The stream ended; true when a pass checkpointed it, so that its settlement removes the checkpoint. */
  end(ctx: RequestContext): boolean
  close(): void
}

interface StreamProgress {
  countedChars: number
  completionTokens: number
  checkpointed: boolean
}

export function streamCheckpoints({ intervalMs, count, checkpointOf, start, write, track }: StreamCheckpointsOptions): StreamCheckpoints {
  const streams = new Map<RequestContext, StreamProgress>()
  let admitted: RequestContext[] = []
  let startingSoon: NodeJS.Immediate | undefined

  // One record for the streams admitted in this turn of the event loop, made as the turn ends: as
  // a rule before the provider, asked in the same turn, can have answered.
  function startAdmitted(): void {
    startingSoon = undefined
    const running = admitted.filter((ctx) => streams.has(ctx))
    admitted = []
    if (running.length > 0) track(start(running.map((ctx) => checkpointOf(ctx, 0))))
  }

  /**
   * Counts what each running stream sent since its last checkpoint and records it. A stream that
   * ended while its text was being counted is left out: its settlement counts its whole text, and
   * removes only a checkpoint it knew of.
   */
  function checkpointStreams(): Promise<void> | undefined {
    const pending: Array<{ ctx: RequestContext; stream: StreamProgress; upTo: number }> = []
    for (const [ctx, stream] of streams) {
      if (ctx.streamedText.length > stream.countedChars) pending.push({ ctx, stream, upTo: ctx.streamedText.length })
    }
    if (pending.length === 0) return undefined
    const record = (tokens: readonly number[]) => {
      const progress: StreamCheckpoint[] = []
      pending.forEach(({ ctx, stream, upTo }, i) => {
        if (streams.get(ctx) !== stream) return
        stream.completionTokens += tokens[i]!
        stream.countedChars = upTo
        stream.checkpointed = true
        progress.push(checkpointOf(ctx, stream.completionTokens))
      })
      if (progress.length > 0) track(write(progress))
    }
    const counted = count(pending.map(({ ctx, stream, upTo }) => ctx.streamedText.slice(stream.countedChars, upTo)))
    if (!(counted instanceof Promise)) {
      record(counted)
      return undefined
    }
    return counted.then(record)
  }

  let checkpointing: Promise<void> | undefined
  const periodic = setInterval(() => {
    if (checkpointing !== undefined) return
    const pass = checkpointStreams()
    if (pass === undefined) return
    checkpointing = pass.finally(() => {
      checkpointing = undefined
    })
    track(checkpointing)
  }, intervalMs)
  periodic.unref()

  return {
    follow(ctx) {
      streams.set(ctx, { countedChars: 0, completionTokens: 0, checkpointed: false })
      admitted.push(ctx)
      startingSoon ??= setImmediate(startAdmitted)
    },
    end(ctx) {
      const progress = streams.get(ctx)
      streams.delete(ctx)
      return progress?.checkpointed === true
    },
    close() {
      clearInterval(periodic)
      clearImmediate(startingSoon)
    },
  }
}
