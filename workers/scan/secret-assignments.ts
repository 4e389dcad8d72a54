// Secrets recognized by where they sit rather than by their own format: the value assigned to a
// name like password / api_key / client_secret / Authorization, the credentials of `curl -u`,
// and the password in a URL's user-info. Names and values are parsed by hand around each keyword
// hit, so the cost is linear in the text length.
import { hasDigit, hasLetter, isAlphabetConstant, isPlaceholder, isStandInCredential, isTemplate, randomnessBar, shannonEntropy } from './secret-values.ts'
import type { Span } from './normalize.ts'

const NAME_KEYWORD = /pass|pwd|secret|token|key|credential|auth/gi
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'pass',
  'secret',
  'token',
  'key',
  'apikey',
  'credential',
  'credentials',
  'auth',
  'authorization',
  'authtoken',
  'accesstoken',
  'secretkey',
  'privatekey',
  'clientsecret',
])
// A secret word anywhere in the name, unless the name describes the secret instead of holding it.
const DESCRIBING_LAST_WORDS = new Set([
  'id',
  'ids',
  'name',
  'names',
  'length',
  'len',
  'size',
  'url',
  'uri',
  'path',
  'file',
  'type',
  'types',
  'count',
  'format',
  'version',
  'prefix',
  'suffix',
  'field',
  'label',
  'column',
  'header',
  'index',
  'idx',
  'ref',
  'env',
  'var',
  'variable',
  'hint',
  'policy',
  'rotation',
  'expiry',
  'expires',
  'expiration',
  'ttl',
  'timeout',
  'algorithm',
  'alg',
  'provider',
  'manager',
  'mode',
  'enabled',
  'required',
  'pattern',
  'regex',
  'min',
  'max',
  'chars',
  'encoding',
  'location',
  'dir',
  'secrets',
  'tokens',
  'keys',
  'endpoint',
  'method',
  'scheme',
  'store',
  'vault',
  'map',
  'mapping',
  'error',
  'errors',
  'message',
  'status',
])
const NOT_A_SECRET_WORDS = new Set([
  'public',
  'pub',
  'csrf',
  'xsrf',
  'sort',
  'primary',
  'foreign',
  'partition',
  'cache',
  'page',
  'next',
  'cursor',
  'idempotency',
])
// "key" after these names the key of a lookup (a map entry, a storage object, a database row, a
// translation), not a credential: bucketKey, schemaKey, cache_key, i18nKey, rowKey.
const LOOKUP_NOUNS = new Set([
  'bucket',
  'schema',
  'object',
  'row',
  'column',
  'table',
  'record',
  'entry',
  'item',
  'map',
  'dict',
  'hash',
  'index',
  'lookup',
  'storage',
  'blob',
  'file',
  'path',
  'folder',
  'prefix',
  'field',
  'property',
  'prop',
  'attr',
  'attribute',
  'metric',
  'label',
  'tag',
  'group',
  'category',
  'type',
  'kind',
  'node',
  'route',
  'query',
  'request',
  'response',
  'event',
  'message',
  'msg',
  'translation',
  'i18n',
  'locale',
  'lang',
  'language',
  'text',
  'string',
  'config',
  'setting',
  'settings',
  'option',
  'state',
  'store',
  'session',
  'job',
  'task',
  'queue',
  'topic',
  'stream',
  'shard',
  'region',
  'feature',
  'flag',
  'experiment',
  'variant',
  'dedup',
  'dedupe',
  'unique',
  'composite',
  'range',
  'hot',
  'short',
  'keyboard',
  'sequence',
  'template',
  'component',
  'element',
  'list',
  'react',
  'redis',
  'memcache',
  'registry',
  'resource',
  'entity',
  'model',
  'document',
  'doc',
  'product',
  'order',
])
const AUTH_SCHEME = /^(?:bearer|basic|token|api-token|apikey|digest|jwt)\s+/i
// Values that start like a provider token are judged by that provider's rule (a near-miss of a
// Slack or GitHub token format is not a secret just because it sits after "token:").
const PROVIDER_PREFIX =
  /^(?:xox[a-z]|xapp-|gh[pousr]_|github_pat_|glpat-|sk-|sk_|rk_|AKIA|ASIA|AIza|hf_|sq0|SG\.|ops_|pypi-|npm_|dapi|glc_|glsa_|sgp_|ntn_|pplx-|ATATT)/
const CODE_REFERENCE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(.*\))?$|^[A-Za-z_]+$|\(\)$|^(?:process\.env|os\.environ|getenv)/
const MAX_NAME = 64
const MAX_VALUE = 2048
const MIN_VALUE = 8

/** Spans of values assigned to secret-like names. */
export function findAssignedSecrets(text: string): Span[] {
  const spans: Span[] = []
  // An exec loop, not matchAll: the loop moves lastIndex past each value it consumed.
  NAME_KEYWORD.lastIndex = 0
  for (let m = NAME_KEYWORD.exec(text); m !== null; m = NAME_KEYWORD.exec(text)) {
    const nameStart = expandName(text, m.index, -1)
    const nameEnd = expandName(text, m.index + m[0].length, 1)
    NAME_KEYWORD.lastIndex = nameEnd
    if (!isSecretName(text.slice(nameStart, nameEnd))) continue
    const value = assignedValue(text, nameStart, nameEnd)
    if (value === undefined) continue
    // Text already read as a value is not searched again for names: keeps the scan linear.
    NAME_KEYWORD.lastIndex = Math.max(nameEnd, value.scannedTo)
    if (value.span === undefined) continue
    const secret = stripAuthScheme(text, value.span)
    if (isSecretValue(text.slice(secret.start, secret.end), text.slice(nameStart, nameEnd), isQuote(text[value.span.start - 1]))) spans.push(secret)
  }
  return spans
}

function isNameChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45 || code === 46
}

function expandName(text: string, from: number, direction: 1 | -1): number {
  let pos = from
  let steps = 0
  if (direction === -1) {
    while (pos > 0 && steps < MAX_NAME && isNameChar(text.charCodeAt(pos - 1))) {
      pos--
      steps++
    }
  } else {
    while (pos < text.length && steps < MAX_NAME && isNameChar(text.charCodeAt(pos))) {
      pos++
      steps++
    }
  }
  return pos
}

/** Splits snake_case, kebab-case, dotted and camelCase names into lower-case words without trailing digits. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .map((word) => word.toLowerCase().replace(/\d+$/, ''))
    .filter((word) => word.length > 0)
}

function isSecretName(name: string): boolean {
  const words = nameWords(name)
  const last = words[words.length - 1]
  if (last === undefined || DESCRIBING_LAST_WORDS.has(last)) return false
  if (words.some((word) => NOT_A_SECRET_WORDS.has(word))) return false
  if (last === 'key' && words.length > 1 && LOOKUP_NOUNS.has(words[words.length - 2] as string)) return false
  return words.some((word) => SECRET_WORDS.has(word))
}

interface ValueRead {
  /** The value, or undefined when the text after the operator is not a usable value. */
  readonly span: Span | undefined
  /** How far the text was read while looking for the value. */
  readonly scannedTo: number
}

// Assignment operators of the languages and config formats people paste: = : := ::= :::= (Make,
// BNF), => (PHP, Ruby, Perl), ?= ||= (Make, Ruby), <- (R), the comparisons == === != !== (a
// credential compared against a literal is written in the code), and the comma of ("name", "v").
const OPERATOR = /^(?::{1,3}=|=>|={2,3}|!={1,2}|\?=|\|\|=|<-|=|:|,)/
const COMPARISON = /^[=!]=/

/**
 * The value after `name` in an assignment-like position: `name = v`, `name: v`, `name := v`,
 * `name ::= v`, `"name": "v"`, `name => v`, `name == "v"`, `("name", "v")`, `<name>v</name>`, and
 * the same with the value in brackets (`name = ["v"]`, `name: {"v"}`). Undefined when there is none.
 */
function assignedValue(text: string, nameStart: number, nameEnd: number): ValueRead | undefined {
  const before = text[nameStart - 1]
  let pos = nameEnd
  const quotedName = before === '"' || before === "'" || before === '`'
  if (quotedName && text[pos] === before) pos++
  const xml = before === '<' && text[pos] === '>'
  if (xml) return valueAt(text, pos + 1, '<')
  pos = skipBlanks(text, pos)
  const operator = OPERATOR.exec(text.slice(pos, pos + 4))
  if (operator === null) return undefined
  if (operator[0] === ',' && !quotedName) return undefined
  if (operator[0] === ':' && text[pos + 1] === ':') return undefined
  let start = skipBlanks(text, pos + operator[0].length)
  // A literal in brackets: the quoted string inside is the value.
  if ('[{('.includes(text[start] ?? ' ') && isQuote(text[skipBlanks(text, start + 1)])) start = skipBlanks(text, start + 1)
  if (COMPARISON.test(operator[0]) && !isQuote(text[start])) return undefined
  return valueAt(text, start, undefined)
}

function isQuote(char: string | undefined): boolean {
  return char === '"' || char === "'" || char === '`'
}

function skipBlanks(text: string, from: number): number {
  let pos = from
  while (pos < text.length && (text[pos] === ' ' || text[pos] === '\t') && pos - from < 8) pos++
  return pos
}

function valueAt(text: string, start: number, terminator: string | undefined): ValueRead {
  const open = text[start]
  if (open === '"' || open === "'" || open === '`') {
    const close = text.slice(start + 1, start + 1 + MAX_VALUE).indexOf(open)
    if (close < 0) return { span: undefined, scannedTo: Math.min(text.length, start + 1 + MAX_VALUE) }
    const end = start + 1 + close
    const span = text.slice(start + 1, end).includes('\n') ? undefined : { start: start + 1, end }
    return { span, scannedTo: end + 1 }
  }
  const scheme = AUTH_SCHEME.exec(text.slice(start, start + 16))
  const valueStart = scheme === null ? start : start + scheme[0].length
  let end = valueStart
  while (end < text.length && end - valueStart < MAX_VALUE && !endsUnquotedValue(text.charCodeAt(end), terminator)) end++
  const usable = end > valueStart && end - valueStart < MAX_VALUE
  return { span: usable ? { start: valueStart, end } : undefined, scannedTo: end }
}

// Whitespace and the punctuation that closes a value in code: , ; quotes ) } ] (and the XML "<").
function endsUnquotedValue(code: number, terminator: string | undefined): boolean {
  if (code <= 32 || code === 44 || code === 59 || code === 34 || code === 39 || code === 96 || code === 41 || code === 125 || code === 93) return true
  return terminator !== undefined && code === terminator.charCodeAt(0)
}

function stripAuthScheme(text: string, value: Span): Span {
  const scheme = AUTH_SCHEME.exec(text.slice(value.start, value.end))
  return scheme === null ? value : { start: value.start + scheme[0].length, end: value.end }
}

function isSecretValue(value: string, name: string, quoted: boolean): boolean {
  if (value.length < MIN_VALUE) return false
  if (/\s/.test(value)) return isSpacedTokenList(value)
  if (isTemplate(value) || isPlaceholder(value) || isStandInCredential(value) || isAlphabetConstant(value)) return false
  if (PROVIDER_PREFIX.test(value) || CODE_REFERENCE.test(value) || value.includes('://') || value.startsWith('/')) return false
  if (!quoted && CODE_EXPRESSION.test(value)) return false
  if (echoesName(value, name)) return false
  const mixed = hasDigit(value) || /[^A-Za-z0-9]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value))
  if (!mixed || !hasLetter(value)) return false
  return shannonEntropy(value) >= (HEX_TOKEN.test(value) ? hexRandomnessBar(value.length) : randomnessBar(value.length, 3))
}

// Code rather than a literal, in an unquoted value: a call, tuple or index (`getKey(user`,
// `(os.environ[`, `cfg[`), member access through -> or ::, optional chaining, or a logical operator.
const CODE_EXPRESSION = /[([]|->|::|\?\.|\|\||&&/
// Hex tokens (API keys of many services, session ids) use 16 symbols, so even a random one has
// lower per-character entropy than a base62 value of the same length; they get a bar of their own.
const HEX_TOKEN = /^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]+$|^(?=[0-9A-F]*\d)(?=[0-9A-F]*[A-F])[0-9A-F]+$/

function hexRandomnessBar(length: number): number {
  return Math.min(3, 0.7 * Math.log2(Math.max(length, 2)))
}

/** "FlyV1 fm1_…,fm2_…" style values: a scheme word followed by long random tokens. */
function isSpacedTokenList(value: string): boolean {
  const parts = value.split(/\s+/)
  const longest = parts.reduce((a, b) => (b.length > a.length ? b : a), '')
  return longest.length >= 32 && !isPlaceholder(longest) && !isTemplate(longest) && shannonEntropy(longest) >= 4
}

/** A constant whose value repeats a distinctive word of its own name is a label, not a secret. */
function echoesName(value: string, name: string): boolean {
  const flatValue = value.toLowerCase().replace(/[^a-z0-9]/g, '')
  return nameWords(name).some((word) => word.length >= 4 && !SECRET_WORDS.has(word) && flatValue.includes(word))
}

const CURL_USER = /(?<![\w-])(?:-u|--user)(?:=|[ \t]{1,5})/g
const URL_USERINFO = /(?<![\w+.-])[a-z][a-z0-9+.-]{1,15}:\/\/([^\s:@/'"<>]{1,128}):([^\s@/'"<>]{1,128})@/dgi
// A command continues on the next line after a backslash (sh), a caret (cmd) or a backtick
// (PowerShell) at the end of the line; `curl` may be that many lines above its -u.
const CONTINUED_LINE = /[\\^`][ \t]*\r?$/
const MAX_CONTINUED_LINES = 12
const MAX_COMMAND_CHARS = 2000

/** Spans of credentials passed to curl with -u / --user. */
export function findCurlCredentials(text: string): Span[] {
  const spans: Span[] = []
  for (const m of text.matchAll(CURL_USER)) {
    if (!/\bcurl\b/.test(commandBefore(text, m.index))) continue
    const token = credentialToken(text, m.index + m[0].length)
    if (token === undefined) continue
    const pair = userAndPassword(text.slice(token.start, token.end))
    if (pair !== undefined && isCredential(pair.user, pair.password)) spans.push(token)
  }
  return spans
}

/** The command that `at` belongs to, up to `at`: its line, and the lines it continues. */
function commandBefore(text: string, at: number): string {
  let start = text.lastIndexOf('\n', at - 1) + 1
  for (let lines = 0; lines < MAX_CONTINUED_LINES && start > 0 && at - start < MAX_COMMAND_CHARS; lines++) {
    const previousStart = text.lastIndexOf('\n', start - 2) + 1
    if (!CONTINUED_LINE.test(text.slice(previousStart, start - 1))) break
    start = previousStart
  }
  return text.slice(Math.max(start, at - MAX_COMMAND_CHARS), at)
}

/** One shell word: unquoted characters and quoted stretches ("user":'pass'), up to a blank. */
function credentialToken(text: string, start: number): Span | undefined {
  let end = start
  while (end < text.length && end - start < 256 && !/\s/.test(text[end] as string)) {
    const char = text[end]
    if (char === '"' || char === "'") {
      const close = text.indexOf(char, end + 1)
      if (close < 0 || close - start > 256) return undefined
      end = close
    }
    end++
  }
  return end > start ? { start, end } : undefined
}

const WRAPPERS: Readonly<Record<string, string>> = { '"': '"', "'": "'", '{': '}', '[': ']', '(': ')', '<': '>' }

/** One layer of quotes or brackets around the whole, then around each part. */
function unwrap(part: string): string {
  const close = WRAPPERS[part[0] ?? '']
  return close !== undefined && part.length >= 2 && part.endsWith(close) ? part.slice(1, -1) : part
}

/** `user:password`, quoted or bracketed as a whole or part by part ("u":"p", {u:p}, 'u':'p'). */
function userAndPassword(raw: string): { user: string; password: string } | undefined {
  const inner = unwrap(raw)
  const colon = inner.indexOf(':')
  if (colon < 0) return undefined
  return { user: unwrap(inner.slice(0, colon)), password: unwrap(inner.slice(colon + 1)) }
}

/**
 * User-info credentials: the password decides (the user part when the password is empty, as in
 * `-u token:`). A user given as a variable does not make a literal password any less leaked.
 */
function isCredential(user: string, password: string): boolean {
  const secret = password.length > 0 ? password : user
  return secret.length >= 6 && !isTemplate(secret) && !isPlaceholder(secret) && !isStandInCredential(secret)
}

// A user and a password given side by side as two quoted strings to something named for
// authentication: auth=("user", "pass"), HTTPBasicAuth('user', 'pass'), new
// NetworkCredential("user", "pass"), login("user", "pass"), { auth: ['user', 'pass'] }.
const CREDENTIAL_PAIR =
  /\b[\w.]*(?:auth|credential|login|signin|sign_in|logon)[\w.]*["']?\s{0,4}(?:[:=]\s{0,4})?[([{]\s{0,4}(["'])([^"'\n]{1,128})\1\s{0,4},\s{0,4}(["'])([^"'\n]{1,256})\3/dgi

// Two strings passed to any function whose name mentions login are often labels or event names
// ("submit_button"); a password in code has a digit, a symbol or a capital in it.
const IDENTIFIER = /^[a-z_.-]+$/

/** Spans of passwords given as the second of two quoted strings to an authentication call or field. */
export function findCredentialPairs(text: string): Span[] {
  const spans: Span[] = []
  for (const m of text.matchAll(CREDENTIAL_PAIR)) {
    const password = m[4] as string
    const span = m.indices?.[4]
    if (span !== undefined && isCredential(m[2] as string, password) && !IDENTIFIER.test(password)) spans.push({ start: span[0], end: span[1] })
  }
  return spans
}

/** Spans of passwords in URL user-info (scheme://user:password@host). */
export function findUrlCredentials(text: string): Span[] {
  const spans: Span[] = []
  for (const m of text.matchAll(URL_USERINFO)) {
    const userSpan = m.indices?.[1]
    const passwordSpan = m.indices?.[2]
    if (userSpan === undefined || passwordSpan === undefined) continue
    if (isCredential(m[1] as string, m[2] as string)) spans.push({ start: userSpan[0], end: passwordSpan[1] })
  }
  return spans
}
