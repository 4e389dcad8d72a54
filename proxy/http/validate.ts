// zod results become the gateway's 400: `error` names the first problem, `message` lists all,
// `issues` carries them with their paths for programs.
import { z } from 'zod'
import { InvalidRequestError, type ValidationIssue } from '../pipeline/errors.ts'

function describeIssue(issue: z.core.$ZodIssue): ValidationIssue {
  const path = issue.path.map(String).join('.')
  const last = issue.path.at(-1)
  const message = path === '' || (typeof last === 'string' && issue.message.startsWith(last)) ? issue.message : `${path}: ${issue.message}`
  return { path, message }
}

export function validate<T extends z.ZodType>(schema: T, value: unknown, what = 'body'): z.output<T> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issues = result.error.issues.map(describeIssue)
  throw new InvalidRequestError(`Invalid request: ${issues[0]!.message}`, `The request ${what} is invalid: ${issues.map((i) => i.message).join('; ')}.`, issues)
}

/** A field that takes one of a fixed list of words; a wrong one is told the whole list. */
export function oneOf<const T extends readonly [string, ...string[]]>(field: string, values: T) {
  return z.enum(values, { error: `${field} must be one of ${values.join(', ')}` })
}
