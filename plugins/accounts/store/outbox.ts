// A mail as the outbox keeps it, in either store (lmdb/outbox.ts, postgres/outbox.ts).
import type { Mail } from '../logic/mail.ts'

export interface OutboxMessage extends Mail {
  readonly id: string
  readonly sentAt: string
}
