// Idempotency keys on /api/ai/complete and /api/ai/chat, with Stripe's semantics: a retry under
// the same Idempotency-Key with the same request, within 24 hours, gets the stored answer and is
// not charged again. The answer is committed before it is written, so a client cut off after its
// request was charged can always retry. A replay hands metering the original's id: the ledger
// settles by request id, so the original is charged exactly once, also when a crash came between
// this commit and the ledger's.
import { Counter } from 'prom-client'
import type { CompletionResult } from '../../proxy/pipeline/completion.ts'
import { aiRequestOf, type RequestContext } from '../../proxy/pipeline/context.ts'
import { reachedCrashPoint } from '../../proxy/kit/crash-points.ts'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { microsOfCents } from '../../proxy/pipeline/price.ts'
import { Reply } from '../../proxy/http/reply.ts'
import { isExpired, type Decision, type DoneRecord, type StoredAnswer } from './logic/decide.ts'
import { parseIdempotencyKey } from './logic/idempotency-key.ts'
import { LocalFlights, waitForEnd } from './local-flights.ts'
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError, InvalidIdempotencyKeyError } from './errors.ts'
import { openIdempotencyRecords, type RecordId } from './store/index.ts'
import { requestHash } from './logic/request-hash.ts'
import { idempotencySchema } from './schema.ts'

const REPLAY_HEADER = 'x-idempotent-replay'
const ORIGINAL_REQUEST_HEADER = 'x-original-request-id'

/** A request that runs under a key it owns. */
interface Claim {
  readonly id: RecordId
  readonly flightKey: string
  committed: boolean
}

/** Seconds a client is told to wait when another process is answering under its key. */
const BUSY_RETRY_AFTER_S = 1

export default {
  name: 'idempotency',
  order: 220,
  gates: ['ai'],
  reads: ['auth'],
  schema: idempotencySchema,
  async setup(config, { store, database, clock, metrics, log, track }) {
    const records = await openIdempotencyRecords({ store, database, clock }, config)
    const flights = new LocalFlights()
    const claims = new WeakMap<RequestContext, Claim>()
    const outcomes = new Counter({
      name: 'tollgate_idempotent_requests_total',
      help: 'Requests sent with an Idempotency-Key, by what became of them (started, taken_over, replayed, key_reused, in_use).',
      labelNames: ['outcome'],
      registers: [metrics],
    })
    const sweeper = setInterval(() => {
      track(
        records.sweep(clock.now(), config.sweepBatch).then((removed) => {
          if (removed > 0) log.debug({ removed }, 'expired idempotency records removed')
        }),
      )
    }, config.sweepIntervalMs)
    sweeper.unref()

    function inUse(): Reply {
      outcomes.inc({ outcome: 'in_use' })
      return Reply.error(new IdempotencyKeyInUseError(BUSY_RETRY_AFTER_S))
    }

    function replay(ctx: RequestContext, record: DoneRecord): Reply {
      const { answer } = record
      ctx.state.idempotency = { replayOf: record.requestId, keyId: answer.keyId, answeredAt: answer.answeredAt, chargedMicros: answer.chargedMicros }
      for (const [name, value] of answer.headers) ctx.responseHeaders[name] = value
      ctx.responseHeaders[REPLAY_HEADER] = 'true'
      ctx.responseHeaders[ORIGINAL_REQUEST_HEADER] = record.requestId
      outcomes.inc({ outcome: 'replayed' })
      return Reply.completion(answer.result)
    }

    async function claim(ctx: RequestContext, id: RecordId, hash: string): Promise<Reply | undefined> {
      // An answered key stays answered until it expires, so a replay needs no write transaction.
      const known = await records.get(id)
      if (known?.state === 'done' && known.hash === hash && !isExpired(known, clock.now())) return replay(ctx, known)
      const flightKey = `${id.projectId}\u0000${id.key}`
      const deadline = performance.now() + config.waitMs
      for (;;) {
        let decision: Decision
        try {
          decision = await records.claim(id, { hash, now: clock.now() }, ctx.id, () => flights.start(flightKey, ctx.id))
        } catch (err) {
          flights.end(flightKey, ctx.id)
          throw err
        }
        switch (decision.kind) {
          case 'run':
            claims.set(ctx, { id, flightKey, committed: false })
            outcomes.inc({ outcome: decision.takenOver ? 'taken_over' : 'started' })
            if (decision.takenOver) ctx.log.warn('an idempotency key left in flight by a stopped process is run again')
            return undefined
          case 'replay':
            return replay(ctx, decision.record)
          case 'mismatch':
            outcomes.inc({ outcome: 'key_reused' })
            return Reply.error(new IdempotencyKeyReusedError())
          case 'busy':
            return inUse()
          case 'wait': {
            const ended = flights.endOf(flightKey, decision.requestId)
            const left = deadline - performance.now()
            if (ended === undefined || left <= 0 || (await waitForEnd(ended, ctx.signal, left)) !== 'ended') return inUse()
            // The run has ended: its record now holds an answer to replay, or is gone and this request runs.
          }
        }
      }
    }

    function answerOf(ctx: RequestContext, result: CompletionResult): StoredAnswer {
      return {
        result,
        headers: Object.entries(ctx.responseHeaders).filter(([name]) => !name.startsWith('x-ratelimit-')),
        keyId: ctx.state.auth!.keyId,
        answeredAt: clock.now(),
        // What metering charges for this answer: its cost (a cache hit's is nothing).
        chargedMicros: microsOfCents(result.usage.costCents),
      }
    }

    async function commit(ctx: RequestContext, claim: Claim, result: CompletionResult): Promise<void> {
      try {
        await records.finish(claim.id, ctx.id, answerOf(ctx, result))
      } catch (err) {
        // The answer still goes out; without a stored answer a retry runs again, as without a key.
        ctx.log.error({ err }, 'the idempotency record could not be committed')
        return
      }
      claim.committed = true
      reachedCrashPoint('idempotency-commit')
    }

    return {
      onRequest(ctx) {
        const parsed = parseIdempotencyKey(ctx.headers['idempotency-key'])
        if (parsed === undefined) return undefined
        if (!parsed.ok) return Reply.error(new InvalidIdempotencyKeyError(parsed.message))
        const auth = ctx.state.auth
        if (auth === undefined) return undefined
        return claim(ctx, { projectId: auth.project.id, key: parsed.key }, requestHash(ctx.route.name, auth.testMode, aiRequestOf(ctx)))
      },
      // Every onAnswer hook has run: a withheld answer (the Governor's strict mode) is never
      // stored, so a retry is answered afresh rather than replayed.
      onAnswered(ctx, result, withheld) {
        const owned = claims.get(ctx)
        if (owned === undefined || withheld !== undefined) return undefined
        return commit(ctx, owned, result)
      },
      onComplete(ctx) {
        const owned = claims.get(ctx)
        if (owned === undefined) return
        const end = () => flights.end(owned.flightKey, ctx.id)
        // A committed answer stays, whatever happened after: its client may retry and must get it.
        if (owned.committed) return end()
        // No answer (an error, a stream cut short, a withheld answer): the key is free for a retry.
        track(records.release(owned.id, ctx.id).finally(end))
      },
      async close() {
        clearInterval(sweeper)
        await records.close()
      },
    }
  },
} satisfies GatewayPlugin<typeof idempotencySchema>
