import t from 'tap'
import { scanContent, type EntityType } from '../../../workers/scan-content.ts'

function found(text: string, type: EntityType): string[] {
  return scanContent({ text, types: [type] }).map((f) => text.slice(f.start, f.end))
}

function scoreOf(text: string, type: EntityType): number | undefined {
  return scanContent({ text, types: [type] })[0]?.score
}

t.test('US_SSN: finds delimited numbers and rejects never-issued and published sample numbers', async (t) => {
  t.same(found('ssn 536-22-1234 or 536 22 1234', 'US_SSN'), ['536-22-1234', '536 22 1234'])
  for (const invalid of ['000-12-3456', '666-12-3456', '912-34-5678', '536-00-1234', '536-22-0000', '123-45-6789', '078-05-1120', '111-11-1111']) {
    t.same(found(`ssn ${invalid}`, 'US_SSN'), [], invalid)
  }
})

t.test('US_SSN: rejects mismatched delimiters and keeps bare nine digits weak unless context says SSN', async (t) => {
  t.same(found('536-22.1234', 'US_SSN'), [])
  t.ok((scoreOf('ref 536221234', 'US_SSN') ?? 1) < 0.1)
  t.ok((scoreOf('SSN: 536221234', 'US_SSN') ?? 0) >= 0.4)
})

t.test('US_ITIN, US_NPI, US_MBI and ABA routing numbers follow their published rules', async (t) => {
  t.same(found('itin 912-70-1234, not 912-69-1234', 'US_ITIN'), ['912-70-1234'])
  t.same(found('NPI 1234567893, not 1234567894', 'US_NPI'), ['1234567893'])
  t.same(found('MBI 1EG4-TE5-MK73, not 1EG4-TS5-MK73', 'US_MBI'), ['1EG4-TE5-MK73'])
  t.same(found('routing 026009593, not 026009594', 'ABA_ROUTING_NUMBER'), ['026009593'])
})

t.test('CA_SIN: Luhn-valid with one kind of separator', async (t) => {
  t.same(found('SIN 193 456 787', 'CA_SIN'), ['193 456 787'])
  t.same(found('SIN 193 456 788, 193-456 787, 893 456 787', 'CA_SIN'), [])
})

t.test('UK_NHS: mod 11 check digit; UK_NINO: allocated prefixes and suffix A–D', async (t) => {
  t.same(found('NHS 943 476 5919 and 450 557 7104', 'UK_NHS'), ['943 476 5919', '450 557 7104'])
  t.same(found('NHS 943 476 5918', 'UK_NHS'), [])
  t.same(found('NI AB 12 34 56 C and ce123456d', 'UK_NINO'), ['AB 12 34 56 C', 'ce123456d'])
  t.same(found('NI QQ 12 34 56 C, GB 12 34 56 A, AB 12 34 56 E', 'UK_NINO'), [])
})

t.test('ES_NIF and ES_NIE: control letter from the number mod 23', async (t) => {
  t.same(found('DNI 12345678Z, 12345678-z', 'ES_NIF'), ['12345678Z', '12345678-z'])
  t.same(found('DNI 12345678A', 'ES_NIF'), [])
  t.same(found('NIE X1234567L and Y1234567X', 'ES_NIE'), ['X1234567L', 'Y1234567X'])
  t.same(found('NIE X1234567M, W1234567L', 'ES_NIE'), [])
})

t.test('IT_FISCAL_CODE: the layout is reported weakly and a correct check letter confirms it', async (t) => {
  t.ok((scoreOf('RSSMRA85T10A562S', 'IT_FISCAL_CODE') ?? 0) >= 0.85)
  t.ok((scoreOf('RSSMRA85T10A562T', 'IT_FISCAL_CODE') ?? 1) < 0.5)
  t.same(found('RSSMRA85Z10A562S', 'IT_FISCAL_CODE'), [])
})

t.test('PL_PESEL: weighted check digit and a birth date encoded with its century', async (t) => {
  t.same(found('PESEL 44051401359 and 92112301238', 'PL_PESEL'), ['44051401359', '92112301238'])
  t.same(found('PESEL 44051401358 and 44151401359', 'PL_PESEL'), [])
})

t.test('FI_PERSONAL_IDENTITY_CODE: date, century sign and mod 31 check character', async (t) => {
  t.same(found('hetu 010101-123N, 311280-999J', 'FI_PERSONAL_IDENTITY_CODE'), ['010101-123N', '311280-999J'])
  t.same(found('hetu 010101-123M, 310201-123N, 010101/123N', 'FI_PERSONAL_IDENTITY_CODE'), [])
})

t.test('SE_PERSONNUMMER: Luhn over the ten-digit form, coordination numbers allowed', async (t) => {
  t.same(found('pnr 811218-9876 and 19811218-9876', 'SE_PERSONNUMMER'), ['811218-9876', '19811218-9876'])
  t.same(found('pnr 811218-9875 and 811318-9876', 'SE_PERSONNUMMER'), [])
})

t.test('German identifiers: tax id, VAT id, passport, KVNR, pension number, LANR', async (t) => {
  t.same(found('IdNr 86095742719', 'DE_TAX_ID'), ['86095742719'])
  t.same(found('IdNr 86095742718 and 06095742719', 'DE_TAX_ID'), [])
  t.ok((scoreOf('USt-IdNr. DE136695976', 'DE_VAT_ID') ?? 0) >= 0.9)
  t.same(found('AT136695976', 'DE_VAT_ID'), [])
  t.same(found('Pass C01234565, not C01234566', 'DE_PASSPORT'), ['C01234565'])
  t.same(found('KVNR A123456780, not A123456781', 'DE_HEALTH_INSURANCE'), ['A123456780'])
  t.same(found('RVNR 15070649C103, not 15070649C104', 'DE_SOCIAL_SECURITY'), ['15070649C103'])
  t.same(found('LANR 987654401, not 987654501', 'DE_LANR'), ['987654401'])
})

t.test('TR_NATIONAL_ID: two check digits and no leading zero', async (t) => {
  t.same(found('TCKN 12345678950 and 29876543138', 'TR_NATIONAL_ID'), ['12345678950', '29876543138'])
  t.same(found('TCKN 12345678951, 02345678950', 'TR_NATIONAL_ID'), [])
})

t.test('KR_RRN and KR_FRN: birth date and the sex/century digit decide the type', async (t) => {
  t.same(found('RRN 800101-1234567', 'KR_RRN'), ['800101-1234567'])
  t.same(found('FRN 800101-5234567', 'KR_FRN'), ['800101-5234567'])
  t.same(found('800101-5234567 and 801301-1234567 and 800101-0234567', 'KR_RRN'), [])
})

t.test('TH_TNIN: registering province code and check digit', async (t) => {
  t.same(found('บัตร 1101700203450', 'TH_TNIN'), ['1101700203450'])
  t.same(found('1101700203451 and 1991700203450', 'TH_TNIN'), [])
})

t.test('IN_AADHAAR: Verhoeff check digit, first digit 2–9; IN_GSTIN: layout, confirmed by its check character', async (t) => {
  t.same(found('Aadhaar 2341 2341 2346', 'IN_AADHAAR'), ['2341 2341 2346'])
  t.same(found('Aadhaar 2341 2341 2347 and 1341 2341 2346', 'IN_AADHAAR'), [])
  t.ok((scoreOf('GSTIN 27AAPFU0939F1ZV', 'IN_GSTIN') ?? 0) >= 0.85)
  t.ok((scoreOf('GSTIN 27AAPFU0939F1ZW', 'IN_GSTIN') ?? 1) < 0.85)
  t.same(found('27AAPFU0939F1YV', 'IN_GSTIN'), [])
})

t.test('SG_NRIC_FIN: check letter per series', async (t) => {
  t.same(found('NRIC S1234567D, FIN G1234567X', 'SG_NRIC_FIN'), ['S1234567D', 'G1234567X'])
  t.same(found('NRIC S1234567E', 'SG_NRIC_FIN'), [])
})

t.test('Australian ABN, ACN, TFN and Medicare numbers pass their weighted checksums', async (t) => {
  t.same(found('ABN 53 004 085 616', 'AU_ABN'), ['53 004 085 616'])
  t.same(found('ABN 53 004 085 617', 'AU_ABN'), [])
  t.same(found('ACN 004 085 616', 'AU_ACN'), ['004 085 616'])
  t.same(found('TFN 123 456 782', 'AU_TFN'), ['123 456 782'])
  t.same(found('TFN 123 456 783', 'AU_TFN'), [])
  t.same(found('Medicare 2123 45670 1', 'AU_MEDICARE'), ['2123 45670 1'])
  t.same(found('Medicare 2123 45671 1', 'AU_MEDICARE'), [])
})

t.test('ZA_ID_NUMBER: real birth date, citizenship digit and Luhn', async (t) => {
  t.same(found('ID 9001014800089', 'ZA_ID_NUMBER'), ['9001014800089'])
  t.same(found('ID 9001014800088, 9002304800086, 9001014800389', 'ZA_ID_NUMBER'), [])
})

t.test('digits glued to letters are not read as identifiers', async (t) => {
  t.same(found('order A536221234B', 'US_SSN'), [])
  t.same(found('x12345678950', 'TR_NATIONAL_ID'), [])
})

t.test('identifiers whose letters may be written in lower case', async (t) => {
  t.same(found('hetu 131052-308t', 'FI_PERSONAL_IDENTITY_CODE'), ['131052-308t'])
  t.same(found('KVNR t528371648', 'DE_HEALTH_INSURANCE'), ['t528371648'])
  t.same(found('KVNR t528371647', 'DE_HEALTH_INSURANCE'), [], 'and the check digit still decides')
  t.same(found('MBI 1eg4-te5-mk73', 'US_MBI'), ['1eg4-te5-mk73'])
  t.same(found('MBI 1eg4-ts5-mk73', 'US_MBI'), [], 'the excluded letters stay excluded in lower case')
})

t.test('an identifier glued to the word before it: its own label, or any word for strongly structured codes', async (t) => {
  t.same(found('SSN536-22-1234', 'US_SSN'), ['536-22-1234'])
  t.same(found('ref536-22-1234', 'US_SSN'), [], 'glued to a word that is not its label')
  t.same(found('TCKN10000000146', 'TR_NATIONAL_ID'), ['10000000146'])
  t.same(found('order10000000146', 'TR_NATIONAL_ID'), [])
  t.same(found('my code is131052-308T.', 'FI_PERSONAL_IDENTITY_CODE'), ['131052-308T'])
})
