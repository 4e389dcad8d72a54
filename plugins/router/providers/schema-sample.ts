// A value that fits a JSON Schema, chosen deterministically: how the local provider fills a tool
// call's arguments and a json_schema answer. Pure. It covers the schema keywords tool and
// response schemas use (types, properties, items, enum, const, anyOf/oneOf/allOf, local $ref).

type Schema = Readonly<Record<string, unknown>>

// Deeper (or recursive) schemas end in null rather than recursing without end.
const MAX_DEPTH = 8

const STRING_FORMATS: Readonly<Record<string, string>> = {
  'date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '00:00:00',
  email: 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
}

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)

function resolveRef(ref: string, root: Schema): Schema | undefined {
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const segment of ref.slice(2).split('/')) {
    if (!isSchema(node)) return undefined
    node = node[segment.replaceAll('~1', '/').replaceAll('~0', '~')]
  }
  return isSchema(node) ? node : undefined
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return type.find((t) => t !== 'null') ?? type[0]
  if (isSchema(schema.properties)) return 'object'
  if (schema.items !== undefined) return 'array'
  return undefined
}

function numberOf(schema: Schema): number {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined
  if (minimum !== undefined) return schema.type === 'integer' ? Math.ceil(minimum) : minimum
  if (maximum !== undefined && maximum < 1) return schema.type === 'integer' ? Math.floor(maximum) : maximum
  return 1
}

function stringOf(schema: Schema, text: string): string {
  const format = typeof schema.format === 'string' ? STRING_FORMATS[schema.format] : undefined
  let value = format ?? text
  if (typeof schema.maxLength === 'number') value = value.slice(0, schema.maxLength)
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) value = value.padEnd(schema.minLength, 'x')
  return value
}

function sample(schema: unknown, root: Schema, text: string, depth: number): unknown {
  if (!isSchema(schema) || depth > MAX_DEPTH) return depth > MAX_DEPTH ? null : text
  if (typeof schema.$ref === 'string') return sample(resolveRef(schema.$ref, root), root, text, depth + 1)
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key]
    if (Array.isArray(options) && options.length > 0) return sample(options[0], root, text, depth + 1)
  }
  switch (typeOf(schema)) {
    case 'object': {
      const value: Record<string, unknown> = {}
      const properties = isSchema(schema.properties) ? schema.properties : {}
      // Every property, not only the required ones: strict schemas require all of them.
      for (const [name, property] of Object.entries(properties)) value[name] = sample(property, root, text, depth + 1)
      return value
    }
    case 'array': {
      if (schema.maxItems === 0) return []
      return [sample(schema.items, root, text, depth + 1)]
    }
    case 'string':
      return stringOf(schema, text)
    case 'integer':
    case 'number':
      return numberOf(schema)
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return text
  }
}

/** A value valid against `schema` for the keywords above; strings are `text` (trimmed to fit). */
export function sampleOf(schema: Schema, text: string): unknown {
  return sample(schema, schema, text, 0)
}
