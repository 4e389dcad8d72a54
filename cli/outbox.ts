// `tollgate outbox [--to EMAIL] [--json]`: the mail the accounts plugin kept in its local outbox
// because no SMTP relay is configured, links included, oldest first.
import { parseArgs } from 'node:util'
import { builtinPlugins } from '../plugins/index.ts'
import { listOutbox } from '../plugins/accounts/outbox.ts'
import { loadConfig } from '../proxy/config.ts'
import { openStore } from '../proxy/store.ts'
import { printJson } from './output.ts'

export async function runOutbox(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({ args: [...argv], options: { data: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean' } } })
  const config = loadConfig(builtinPlugins, process.env, values.data === undefined ? {} : { dataDir: values.data })
  const store = openStore(config.core.dataDir)
  try {
    const messages = listOutbox(store.forPlugin('accounts'), values.to)
    if (values.json === true) return printJson(messages)
    if (messages.length === 0) {
      process.stdout.write('(no mail)\n')
      return
    }
    for (const m of messages) {
      process.stdout.write(`--- ${m.sentAt}  to ${m.to}\nSubject: ${m.subject}\n\n${m.text}\n${m.links.map((link) => `link: ${link}\n`).join('')}\n`)
    }
  } finally {
    await store.close()
  }
}
