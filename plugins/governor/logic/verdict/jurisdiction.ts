// Recipients under the GDPR or the UK GDPR: personal data sent to them weighs more.

// EU member states, the other EEA states (IS, LI, NO) and the United Kingdom (GB, and the
// common alias UK).
const PROTECTED = new Set([
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
  'IS',
  'LI',
  'NO',
  'GB',
  'UK',
])

export const JURISDICTION_POINTS = 15

export function isProtectedJurisdiction(country: string | undefined): boolean {
  return country !== undefined && PROTECTED.has(country.toUpperCase())
}
