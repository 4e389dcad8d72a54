// The finding shape every detector returns, and the entity names (Presidio's where one exists).

export const ENTITY_TYPES = [
  'EMAIL_ADDRESS',
  'PHONE_NUMBER',
  'TR_PHONE_NUMBER',
  'PH_MOBILE_NUMBER',
  'CREDIT_CARD',
  'IBAN_CODE',
  'CRYPTO',
  'IP_ADDRESS',
  'MAC_ADDRESS',
  'URL',
  'DATE_TIME',
  'US_SSN',
  'US_ITIN',
  'US_NPI',
  'US_MBI',
  'ABA_ROUTING_NUMBER',
  'CA_SIN',
  'UK_NHS',
  'UK_NINO',
  'ES_NIF',
  'ES_NIE',
  'IT_FISCAL_CODE',
  'PL_PESEL',
  'FI_PERSONAL_IDENTITY_CODE',
  'SE_PERSONNUMMER',
  'DE_TAX_ID',
  'DE_VAT_ID',
  'DE_PASSPORT',
  'DE_HEALTH_INSURANCE',
  'DE_SOCIAL_SECURITY',
  'DE_LANR',
  'TR_NATIONAL_ID',
  'KR_RRN',
  'KR_FRN',
  'TH_TNIN',
  'IN_AADHAAR',
  'IN_GSTIN',
  'SG_NRIC_FIN',
  'AU_ABN',
  'AU_ACN',
  'AU_TFN',
  'AU_MEDICARE',
  'ZA_ID_NUMBER',
  'SECRET',
  'PROMPT_INJECTION',
] as const

export type EntityType = (typeof ENTITY_TYPES)[number]

/**
 * One detected entity. `start`/`end` are UTF-16 offsets into the text the caller passed in (end
 * exclusive), `score` is the detector's confidence in 0..1: below 0.5 means the format matched
 * but nothing else (no checksum, no context word) supports it. `heuristic` marks findings that
 * come from phrase heuristics rather than a format or checksum.
 */
export interface Finding {
  readonly type: EntityType
  readonly start: number
  readonly end: number
  readonly score: number
  readonly heuristic?: true
  /**
   * PROMPT_INJECTION with the learned model on: the model's probability that the text is an attack,
   * and whether the phrase rules flagged the text too (else the model alone did, where the rules
   * could not decide). Without the model the rules alone flag, and it is absent.
   */
  readonly model?: ModelOpinion
}

export interface ModelOpinion {
  readonly probability: number
  readonly withRules: boolean
}

/**
 * A detector scans normalized text and returns findings with offsets into that same text; the
 * caller maps them back to the original. Detectors are pure and synchronous. `wanted` lets a
 * detector that serves several types skip work for types nobody asked for.
 */
export interface Detector {
  readonly types: readonly EntityType[]
  detect(text: string, wanted: ReadonlySet<EntityType>, options: DetectOptions): Finding[]
}

export interface DetectOptions {
  /** Score what the prompt-injection rules leave undecided with the learned model (plugins.governor.learnedModel). */
  readonly learned: boolean
}
