// Actions that only some senders should take. A mismatch is found when the sender's role or
// department is given and none of the given ones fits the action; unknown senders are not
// guessed at.
import type { ActionType } from '../../../../proxy/pipeline/ai-request.ts'

interface Expectation {
  /** Words of which one must appear in the sender's role or department. */
  readonly words: readonly string[]
  readonly describe: string
}

const HR = ['hr', 'human resources', 'people', 'personnel', 'talent', 'recruiting']
const MEDICAL = ['doctor', 'physician', 'nurse', 'clinician', 'clinical', 'medical', 'pharmacist', 'therapist', 'health']
const LEGAL = ['legal', 'lawyer', 'attorney', 'counsel', 'solicitor', 'paralegal', 'compliance']

const EXPECTED: Partial<Readonly<Record<ActionType, Expectation>>> = {
  hr_message: { words: HR, describe: 'HR' },
  medical_advice: { words: MEDICAL, describe: 'a medical role' },
  legal_advice: { words: LEGAL, describe: 'a legal role' },
}

// Must not exceed the gap between two risk classes (action-risk.ts), or a riskier action could
// score lower than a milder one.
export const ROLE_MISMATCH_POINTS = 15

interface RoleMismatch {
  readonly expected: string
}

export function findRoleMismatch(actionType: ActionType, senderRole: string | undefined, department: string | undefined): RoleMismatch | undefined {
  const expectation = EXPECTED[actionType]
  if (expectation === undefined) return undefined
  const given = [senderRole, department].filter((value): value is string => value !== undefined && value.trim() !== '')
  if (given.length === 0) return undefined
  const fits = given.some((value) => {
    const padded = ` ${value
      .toLowerCase()
      .split(/[^a-z]+/)
      .filter((word) => word !== '')
      .join(' ')} `
    return expectation.words.some((word) => padded.includes(` ${word} `))
  })
  return fits ? undefined : { expected: expectation.describe }
}
