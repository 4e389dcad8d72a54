// Steps of the browser tests that a person takes outside the browser: reading the local outbox
// with the CLI, and calling the gateway with an API key as a server would.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))

interface OutboxMessage {
  readonly to: string
  readonly subject: string
  readonly links: readonly string[]
}

/** The newest mail to `to` in the outbox, as `tollgate outbox --json` prints it. */
export async function latestMail(dataDir: string, to: string): Promise<OutboxMessage> {
  const { stdout } = await run(process.execPath, [CLI, 'outbox', '--to', to, '--json', '--data', dataDir])
  const messages = JSON.parse(stdout) as OutboxMessage[]
  const latest = messages.at(-1)
  if (latest === undefined) throw new Error(`no mail to ${to} in the outbox`)
  return latest
}
