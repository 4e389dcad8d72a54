// Tests on a candidate secret value: is it random enough, or a placeholder or template that only
// looks like a key ("xxxx", "<your token>", "${API_KEY}", "****")? Placeholders are never
// reported; the same string with real randomness in it is.

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0
  const counts = new Map<string, number>()
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let entropy = 0
  for (const count of counts.values()) {
    const p = count / value.length
    entropy -= p * Math.log2(p)
  }
  return entropy
}

/**
 * Entropy a random value of this length would comfortably exceed. Short strings cannot reach high
 * per-character entropy (11 distinct characters give at most log2(11) ≈ 3.46 bits), so the bar
 * scales with length and is capped for long values.
 */
export function randomnessBar(length: number, cap: number): number {
  return Math.min(cap, 0.8 * Math.log2(Math.max(length, 2)))
}

// Placeholders, precisely. A value (or the variable part of a provider format) is a placeholder
// when any of these holds:
//  1. it holds a masking run: four or more x or X, three or more * or •, four or more #, or an
//     ellipsis of three dots. Documentation masks keys this way; in a random token drawn from
//     36–64 symbols, four equal letters in a row occur in well under 1 in 1000 tokens;
//  2. with its separators (- _ . / and spaces) left out, it is one character repeated
//     ("ZZZZ…", "0000…", "____"), which no generator produces;
//  3. it names itself a stand-in ("your_api_key", "…_here", "placeholder", "changeme",
//     "redacted", "dummy", "insert key", "replace me");
//  4. it is a template or variable, or sits in brackets around a name ("<token>", "[API_KEY]",
//     "{password}", "(your key)"): see TEMPLATE.
// Underscores alone are not filler: some token formats carry many of them.
const FILLER_RUN = /x{4,}|X{4,}|\*{3,}|•{3,}|#{4,}|\.{3,}|…/
const SEPARATORS = /[-_./\s]/g
const PLACEHOLDER_WORDS =
  /your[_\-\s]?(?:own[_\-\s]?)?(?:api[_\-\s]?)?(?:key|token|secret|password|pass)|put[_\-\s]?your|_here\b|placeholder|changeme|change[_-]me|redacted|\bdummy|insert[_\-\s]?(?:key|token)|replace[_\-\s]?me/i
// A variable, placeholder or template in place of a value: it starts like one ($VAR, $1, ${…},
// $(…), {name}, <name>, [NAME], (name), %s, #{…}; values cut at a space may hold only that start)
// or contains a complete interpolation (${VAR}, {{ expr }}, $(command)).
const TEMPLATE = /^(?:\$[({A-Za-z_\d]|<|\{|\[[\w\s.-]*\]?$|\([\w\s.-]*\)?$|%\(?\w*\)?[sd]$|#\{)|\$\{[A-Za-z_][\w.-]*\}|\{\{[^{}]*\}\}|\$\([^()]*\)/

/** Fill characters, "your key here" phrases, or one character repeated (separators aside). */
export function isPlaceholder(value: string): boolean {
  return FILLER_RUN.test(value) || PLACEHOLDER_WORDS.test(value) || isOneRepeatedChar(value.replace(SEPARATORS, ''))
}

/** A variable, template expression or command substitution standing in for the real value. */
export function isTemplate(value: string): boolean {
  return TEMPLATE.test(value)
}

/**
 * An alphabet or digit table written as a constant ("abcdefghijklmnopqrstuvwxyz…", "0123456789"):
 * six letters in alphabetical order, or all ten digits in order. A random value of 64 symbols
 * holds six consecutive letters in order about once in 10^9.
 */
export function isAlphabetConstant(value: string): boolean {
  if (value.includes('0123456789')) return true
  let run = 1
  for (let i = 1; i < value.length; i++) {
    const previous = value.charCodeAt(i - 1)
    const current = value.charCodeAt(i)
    run = current === previous + 1 && isLetterCode(current) && isLetterCode(previous) ? run + 1 : 1
    if (run >= 6) return true
  }
  return false
}

function isLetterCode(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
}

/** Words people use as stand-in credentials in documentation and examples. */
const STAND_IN_CREDENTIALS = new Set([
  'pass',
  'password',
  'passwd',
  'secret',
  'test',
  'testing',
  'user',
  'username',
  'admin',
  'root',
  'changeme',
  'example',
  'demo',
  'guest',
  'foo',
  'bar',
  'foobar',
  'null',
  'none',
  'true',
  'false',
  'undefined',
])

export function isStandInCredential(value: string): boolean {
  return STAND_IN_CREDENTIALS.has(value.toLowerCase()) || isOneRepeatedChar(value)
}

function isOneRepeatedChar(value: string): boolean {
  for (let i = 1; i < value.length; i++) if (value[i] !== value[0]) return false
  return value.length > 0
}

export function hasDigit(value: string): boolean {
  return /\d/.test(value)
}

export function hasLetter(value: string): boolean {
  return /[A-Za-z]/.test(value)
}
