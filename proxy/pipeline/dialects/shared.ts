// What both client dialects read the same way: the model or tier name, governorMetadata from the
// body or the x-governor-metadata header, and the fields a body sent that no one reads.
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { governorMetadataSchema, type GovernorMetadata } from '../ai-request.ts'
import { InvalidRequestError } from '../errors.ts'
import { modelCatalog, modelNameSchema } from '../catalog.ts'
import { QUALITIES, type ModelName, type Quality } from '../models.ts'
import { validate } from '../../http/validate.ts'

const IGNORED_FIELDS_HEADER = 'x-gateway-ignored-fields'
const GOVERNOR_METADATA_HEADER = 'x-governor-metadata'

const isTier = (name: string): name is Quality => (QUALITIES as readonly string[]).includes(name)

/** A configured model or a tier name, as the dialects' `model` field takes it. */
export const modelOrTierSchema = modelNameSchema(true)

/** A function tool's name, as every provider accepts it. */
export const toolNameSchema = z.string().regex(/^[\w-]{1,64}$/, 'a tool name is 1 to 64 letters, digits, _ or -')

export function modelChoiceOf(name: string): { readonly model?: ModelName; readonly quality: Quality } {
  if (modelCatalog().has(name)) return { model: name, quality: 'balanced' }
  return { quality: isTier(name) ? name : 'balanced' }
}

/** governorMetadata from the body, or else from the header as JSON (SDKs add headers more easily than fields). */
export function governorMetadataOf(fromBody: GovernorMetadata | undefined, headers: IncomingHttpHeaders): GovernorMetadata | undefined {
  if (fromBody !== undefined) return fromBody
  const header = headers[GOVERNOR_METADATA_HEADER]
  if (typeof header !== 'string') return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(header)
  } catch {
    throw new InvalidRequestError(
      `Invalid request: ${GOVERNOR_METADATA_HEADER} is not JSON`,
      `The ${GOVERNOR_METADATA_HEADER} header must hold governorMetadata as a JSON object.`,
    )
  }
  return validate(governorMetadataSchema, parsed, `${GOVERNOR_METADATA_HEADER} header`)
}

/** Top-level fields of the body that the dialect does not read, for the ignored-fields header. */
export function ignoredFieldsHeader(body: unknown, known: ReadonlySet<string>): Record<string, string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {}
  const ignored = Object.keys(body).filter((key) => !known.has(key))
  return ignored.length === 0 ? {} : { [IGNORED_FIELDS_HEADER]: ignored.join(', ') }
}

/** A request's text parts as one text, the way a model reads consecutive parts. */
export function joinTexts(texts: readonly string[]): string {
  return texts.length === 1 ? texts[0]! : texts.join('\n')
}
