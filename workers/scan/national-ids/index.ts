// Every national identifier rule, one file per country.
import { australiaRules } from './australia.ts'
import { canadaRules } from './canada.ts'
import { finlandRules } from './finland.ts'
import { germanyRules } from './germany.ts'
import { indiaRules } from './india.ts'
import { italyRules } from './italy.ts'
import { koreaRules } from './korea.ts'
import { polandRules } from './poland.ts'
import { idRulesDetector } from './rule.ts'
import { singaporeRules } from './singapore.ts'
import { southAfricaRules } from './south-africa.ts'
import { spainRules } from './spain.ts'
import { swedenRules } from './sweden.ts'
import { thailandRules } from './thailand.ts'
import { turkeyRules } from './turkey.ts'
import { unitedKingdomRules } from './united-kingdom.ts'
import { unitedStatesRules } from './united-states.ts'

export const nationalIdDetector = idRulesDetector([
  ...unitedStatesRules,
  ...canadaRules,
  ...unitedKingdomRules,
  ...spainRules,
  ...italyRules,
  ...polandRules,
  ...finlandRules,
  ...swedenRules,
  ...germanyRules,
  ...turkeyRules,
  ...koreaRules,
  ...thailandRules,
  ...indiaRules,
  ...singaporeRules,
  ...australiaRules,
  ...southAfricaRules,
])
