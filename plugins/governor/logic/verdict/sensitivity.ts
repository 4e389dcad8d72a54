// How much each detected entity type weighs: its sensitivity tier sets the points, the severity of
// the violation it opens and whether it counts as personal data (for the jurisdiction weight).
import type { EntityType } from '../../../../workers/scan/types.ts'
import type { Severity, ViolationType } from './types.ts'

export interface Tier {
  readonly name: string
  readonly points: number
  readonly severity: Severity
  readonly violationType: ViolationType
  /** Data about a person: with a recipient in the EU/EEA or UK it weighs more. */
  readonly personal: boolean
}

const SECRET: Tier = { name: 'secret', points: 60, severity: 'CRITICAL', violationType: 'SECURITY', personal: false }
const SPECIAL_CATEGORY: Tier = { name: 'special_category', points: 50, severity: 'CRITICAL', violationType: 'PRIVACY', personal: true }
const PROMPT_INJECTION: Tier = { name: 'prompt_injection', points: 40, severity: 'HIGH', violationType: 'SECURITY', personal: false }
const FINANCIAL_OR_NATIONAL_ID: Tier = { name: 'financial_or_national_id', points: 30, severity: 'HIGH', violationType: 'PRIVACY', personal: true }
const CONTACT: Tier = { name: 'contact', points: 12, severity: 'MEDIUM', violationType: 'PRIVACY', personal: true }
const LOW: Tier = { name: 'low_sensitivity', points: 3, severity: 'LOW', violationType: 'PRIVACY', personal: false }

export const ENTITY_TIERS = {
  SECRET,
  // Health insurance and patient numbers: special-category data (GDPR art. 9).
  UK_NHS: SPECIAL_CATEGORY,
  US_MBI: SPECIAL_CATEGORY,
  AU_MEDICARE: SPECIAL_CATEGORY,
  DE_HEALTH_INSURANCE: SPECIAL_CATEGORY,
  PROMPT_INJECTION,
  CREDIT_CARD: FINANCIAL_OR_NATIONAL_ID,
  IBAN_CODE: FINANCIAL_OR_NATIONAL_ID,
  CRYPTO: FINANCIAL_OR_NATIONAL_ID,
  ABA_ROUTING_NUMBER: FINANCIAL_OR_NATIONAL_ID,
  US_SSN: FINANCIAL_OR_NATIONAL_ID,
  US_ITIN: FINANCIAL_OR_NATIONAL_ID,
  CA_SIN: FINANCIAL_OR_NATIONAL_ID,
  UK_NINO: FINANCIAL_OR_NATIONAL_ID,
  ES_NIF: FINANCIAL_OR_NATIONAL_ID,
  ES_NIE: FINANCIAL_OR_NATIONAL_ID,
  IT_FISCAL_CODE: FINANCIAL_OR_NATIONAL_ID,
  PL_PESEL: FINANCIAL_OR_NATIONAL_ID,
  FI_PERSONAL_IDENTITY_CODE: FINANCIAL_OR_NATIONAL_ID,
  SE_PERSONNUMMER: FINANCIAL_OR_NATIONAL_ID,
  DE_TAX_ID: FINANCIAL_OR_NATIONAL_ID,
  DE_PASSPORT: FINANCIAL_OR_NATIONAL_ID,
  DE_SOCIAL_SECURITY: FINANCIAL_OR_NATIONAL_ID,
  TR_NATIONAL_ID: FINANCIAL_OR_NATIONAL_ID,
  KR_RRN: FINANCIAL_OR_NATIONAL_ID,
  KR_FRN: FINANCIAL_OR_NATIONAL_ID,
  TH_TNIN: FINANCIAL_OR_NATIONAL_ID,
  IN_AADHAAR: FINANCIAL_OR_NATIONAL_ID,
  SG_NRIC_FIN: FINANCIAL_OR_NATIONAL_ID,
  AU_TFN: FINANCIAL_OR_NATIONAL_ID,
  ZA_ID_NUMBER: FINANCIAL_OR_NATIONAL_ID,
  EMAIL_ADDRESS: CONTACT,
  PHONE_NUMBER: CONTACT,
  TR_PHONE_NUMBER: CONTACT,
  PH_MOBILE_NUMBER: CONTACT,
  // Practitioner numbers are public registry entries that still name a person.
  US_NPI: CONTACT,
  DE_LANR: CONTACT,
  URL: LOW,
  IP_ADDRESS: LOW,
  MAC_ADDRESS: LOW,
  DATE_TIME: LOW,
  // Company registration and VAT numbers identify businesses, not people.
  DE_VAT_ID: LOW,
  IN_GSTIN: LOW,
  AU_ABN: LOW,
  AU_ACN: LOW,
} as const satisfies Record<EntityType, Tier>

/** Findings scored below this matched a format and nothing else (workers/scan/types.ts). */
export const CONFIDENT_SCORE = 0.5
/** Each further finding of a type adds this share of its points, up to EXTRA_FINDINGS_COUNTED of them. */
export const EXTRA_FINDING_SHARE = 0.25
export const EXTRA_FINDINGS_COUNTED = 4
