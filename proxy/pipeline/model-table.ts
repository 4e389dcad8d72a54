// The model table shipped with the gateway, read once from models/models.json: data that changes
// when the providers change their models and prices, kept apart from the code that reads it.
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { infoOf, modelEntrySchema } from './model-entry.ts'
import type { ModelInfo, ModelName } from './models.ts'

const TABLE_FILE = new URL('../../models/models.json', import.meta.url)

const tableSchema = z.strictObject({
  models: z.record(z.string().min(1), modelEntrySchema),
  /** Names the providers document for a model of the table (Anthropic's `-latest` and undated ids). */
  aliases: z.record(z.string().min(1), z.string().min(1)),
})

interface ShippedTable {
  readonly models: Readonly<Record<ModelName, ModelInfo>>
  readonly aliases: Readonly<Record<string, ModelName>>
}

/** The table as shipped; a broken file stops the start, since no model could be priced. */
function readTable(): ShippedTable {
  const parsed = tableSchema.safeParse(JSON.parse(readFileSync(TABLE_FILE, 'utf8')))
  if (!parsed.success) throw new Error(`models/models.json is invalid: ${z.prettifyError(parsed.error)}`)
  const models: Record<ModelName, ModelInfo> = {}
  for (const [name, entry] of Object.entries(parsed.data.models)) models[name] = infoOf(name, entry)
  for (const [alias, target] of Object.entries(parsed.data.aliases)) {
    if (models[target] === undefined) throw new Error(`models/models.json is invalid: alias ${alias} names ${target}, which is not in the table`)
  }
  return { models, aliases: parsed.data.aliases }
}

export const SHIPPED_TABLE: ShippedTable = readTable()
