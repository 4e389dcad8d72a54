// JSON with object keys sorted at every depth and no whitespace: the same value always gives the
// same text, whatever order its fields were written or decoded in. What it keeps follows
// JSON.stringify (an undefined member is left out, an undefined array item is null), so a value
// and its JSON round trip encode alike. A function, symbol or bigint has no JSON form: it throws
// rather than be hashed as something it is not.

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
    return `{${members.join(',')}}`
  }
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
    throw new TypeError(`cannot encode a ${typeof value} canonically`)
  }
  return JSON.stringify(value)
}
