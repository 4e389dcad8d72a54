// Cleaning up after gateways that are gone, by any gateway still running: the streams they ran are
// settled to their last checkpoint and the holds they kept are given back, once their owner lease
// (metering_owners) has run out.
import type { PluginDatabase } from '../../../../proxy/stores/database.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { LedgerEntry } from '../records.ts'
import { giveBackHolds, settleBatch } from './settlement.ts'

// A sweep's work per run is bounded; what is left waits for the next run.
const SWEEP_CHECKPOINTS = 100
const SWEEP_HOLDS = 1_000

// The row's owner has no current lease: it was left by a gateway that is gone.
const LEASE_RUN_OUT = (table: string) => `NOT EXISTS (SELECT 1 FROM metering_owners o WHERE o.owner = ${table}.owner AND o.expires_at >= $1)`

/** Settles the streams and releases the holds of gateways whose lease ran out, and drops checkpoints of settled streams. */
export async function sweep(database: PluginDatabase, now: number, events: SharedEventOutbox | undefined): Promise<{ recovered: number; released: number }> {
  return database.transaction(async (sql) => {
    // Gateways sweeping at once could lock the month rows in different orders: one sweeps, the
    // others skip this round.
    const turn = await sql.query<{ mine: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('tollgate metering sweep')) AS mine`)
    if (!turn.rows[0]!.mine) return { recovered: 0, released: 0 }
    const gone = await sql.query<{ entry: LedgerEntry; limit_micros: string }>(
      `DELETE FROM metering_checkpoints WHERE request_id IN (
         SELECT request_id FROM metering_checkpoints WHERE ${LEASE_RUN_OUT('metering_checkpoints')}
         LIMIT ${SWEEP_CHECKPOINTS} FOR UPDATE SKIP LOCKED
       ) RETURNING entry, limit_micros`,
      [now],
    )
    const streams = gone.rows
    // Streams first: a stream settled to its checkpoint releases its own hold with its charge.
    await settleBatch(
      sql,
      streams.map(({ entry, limit_micros }) => ({ entry, limitMicros: Number(limit_micros) })),
      events,
    )
    // A checkpoint whose insert raced its stream's settlement outlived it: the ledger has the stream.
    await sql.query(
      `DELETE FROM metering_checkpoints WHERE request_id IN (
         SELECT c.request_id FROM metering_checkpoints c JOIN metering_ledger l ON l.id = c.request_id
         LIMIT ${SWEEP_CHECKPOINTS} FOR UPDATE OF c SKIP LOCKED
       )`,
    )
    const released = await sql.query<{ released: number }>(
      `WITH gone AS (
         DELETE FROM metering_holds WHERE request_id IN (
           SELECT request_id FROM metering_holds WHERE ${LEASE_RUN_OUT('metering_holds')}
           LIMIT ${SWEEP_HOLDS} FOR UPDATE SKIP LOCKED
         ) RETURNING project_id, key_id, month, micros
       ), ${giveBackHolds('gone')}
       SELECT count(*)::int AS released FROM gone`,
      [now],
    )
    await sql.query(
      `DELETE FROM metering_owners AS o WHERE o.expires_at < $1
       AND NOT EXISTS (SELECT 1 FROM metering_holds h WHERE h.owner = o.owner)
       AND NOT EXISTS (SELECT 1 FROM metering_checkpoints c WHERE c.owner = o.owner)`,
      [now],
    )
    return { recovered: streams.length, released: released.rows[0]!.released }
  })
}
