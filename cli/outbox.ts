// `tollgate outbox [--to EMAIL] [--json]`: the mail the accounts plugin kept in its outbox because
// no SMTP relay is configured, links included, oldest first: the gateways' shared outbox in
// PostgreSQL when DATABASE_URL is set, else the local store's.
import { parseArgs } from 'node:util'
import pino from 'pino'
import { builtinPlugins } from '../plugins/index.ts'
import { listOutbox } from '../plugins/accounts/store/lmdb/outbox.ts'
import type { OutboxMessage } from '../plugins/accounts/store/outbox.ts'
import { listSharedOutbox } from '../plugins/accounts/store/postgres/outbox.ts'
import { ACCOUNTS_MIGRATIONS } from '../plugins/accounts/store/postgres/schema.ts'
import { loadConfig } from '../proxy/config.ts'
import { openDatabase } from '../proxy/stores/database.ts'
import { openStore } from '../proxy/stores/store.ts'
import { printJson } from './output.ts'

async function readOutbox(dataDir: string, databaseUrl: string | undefined, to: string | undefined): Promise<OutboxMessage[]> {
  if (databaseUrl !== undefined) {
    const database = openDatabase(databaseUrl, pino({ level: 'silent' }), { maxConnections: 1 })
    try {
      const accounts = database.forPlugin('accounts')
      await accounts.migrate(ACCOUNTS_MIGRATIONS)
      return await listSharedOutbox(accounts, to)
    } finally {
      await database.close()
    }
  }
  const store = openStore(dataDir)
  try {
    return listOutbox(store.forPlugin('accounts'), to)
  } finally {
    await store.close()
  }
}

export async function runOutbox(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({ args: [...argv], options: { data: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean' } } })
  const config = loadConfig(builtinPlugins, process.env, values.data === undefined ? {} : { dataDir: values.data })
  const messages = await readOutbox(config.core.dataDir, config.core.databaseUrl, values.to)
  if (values.json === true) return printJson(messages)
  if (messages.length === 0) {
    process.stdout.write('(no mail)\n')
    return
  }
  for (const m of messages) {
    process.stdout.write(`--- ${m.sentAt}  to ${m.to}\nSubject: ${m.subject}\n\n${m.text}\n${m.links.map((link) => `link: ${link}\n`).join('')}\n`)
  }
}
