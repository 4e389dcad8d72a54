// The local outbox: without an SMTP relay, mail is kept in the accounts plugin's store, where
// `tollgate outbox` reads it. It holds working links, so it is meant for development only.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { createUlids } from '../../../../proxy/kit/ids.ts'
import type { Mailer } from '../../logic/mail.ts'
import type { OutboxMessage } from '../outbox.ts'

export function listOutbox(store: PluginStore, to?: string): OutboxMessage[] {
  const messages = store.open<OutboxMessage>('outbox')
  const wanted = to?.trim().toLowerCase()
  return [
    ...messages
      .getRange()
      .map(({ value }) => value)
      .filter((m) => wanted === undefined || m.to === wanted),
  ]
}

export function createOutboxMailer(store: PluginStore, clock: Clock): Mailer {
  const messages = store.open<OutboxMessage>('outbox')
  const nextId = createUlids(clock)
  return {
    async send(mail) {
      const message: OutboxMessage = { ...mail, links: [...mail.links], id: nextId(), sentAt: new Date(clock.now()).toISOString() }
      await messages.put(message.id, message)
    },
    async close() {},
  }
}
