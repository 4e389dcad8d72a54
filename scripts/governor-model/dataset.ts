// The labelled training file (../shared/data/prompt-injection/train.jsonl beside the repository):
// rows, and the hash of the file's bytes that the manifest records.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { z } from 'zod'

const Row = z.object({
  id: z.string(),
  text: z.string(),
  label: z.enum(['attack', 'benign']),
  family: z.string(),
  lang: z.string(),
  source: z.string(),
})
export type Row = z.infer<typeof Row>

export interface Dataset {
  readonly rows: readonly Row[]
  readonly sha256: string
}

export const DEFAULT_DATA_FILE = new URL('../../../shared/data/prompt-injection/train.jsonl', import.meta.url)

export function loadDataset(file: string | URL): Dataset {
  const bytes = readFileSync(file)
  const rows = bytes
    .toString('utf8')
    .split('\n')
    .flatMap((line, index) => {
      if (line.trim().length === 0) return []
      const row = Row.safeParse(JSON.parse(line))
      if (!row.success)
        throw new Error(`line ${index + 1} of ${String(file)} is not a training row: ${row.error.issues[0]?.path.join('.')} ${row.error.issues[0]?.message}`)
      return [row.data]
    })
  return { rows, sha256: createHash('sha256').update(bytes).digest('hex') }
}
