// Every plugin declares the plugins whose state slots it reads (`reads`), so that the gateway can
// check their order at boot: a read of another plugin's ctx.state slot that its plugin does not
// declare fails here.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { builtinPlugins } from '../../plugins/index.ts'

const PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url))
const SLOT_READ = /\bctx\??\.state\??\.([A-Za-z]+)/g

/** A slot is named after its plugin, camelCased: rateLimit is rate-limit's. */
function pluginOfSlot(slot: string): string {
  return slot.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file))
}

/** The plugins whose slots the plugin's source reads, other than its own. */
function slotsRead(name: string): Set<string> {
  const read = new Set<string>()
  for (const file of sourcesUnder(join(PLUGINS_DIR, name))) {
    for (const [, slot] of readFileSync(file, 'utf8').matchAll(SLOT_READ)) {
      const owner = pluginOfSlot(slot!)
      if (owner !== name) read.add(owner)
    }
  }
  return read
}

const names = new Set(builtinPlugins.map((plugin) => plugin.name))

for (const plugin of builtinPlugins) {
  t.test(`${plugin.name} declares exactly the plugins whose state it reads`, async (t) => {
    const read = [...slotsRead(plugin.name)].sort()
    for (const owner of read) t.ok(names.has(owner), `the slot it reads belongs to a built-in plugin: ${owner}`)
    t.same([...(plugin.reads ?? [])].sort(), read, 'reads names every plugin whose ctx.state slot it reads, and no other')
  })
}

t.test('the scan finds slot reads however they are written', async (t) => {
  const found = (source: string) => [...source.matchAll(SLOT_READ)].map(([, slot]) => pluginOfSlot(slot!))
  t.same(found('const a = ctx.state.auth; this.#ctx.state.router; ctx.state?.rateLimit'), ['auth', 'router', 'rate-limit'])
})
