// The spec's risk class of each action type, and the points each class adds to a score.
import type { ActionType } from '../../../../proxy/pipeline/ai-request.ts'

type RiskClass = 'low' | 'medium' | 'high'

export const ACTION_RISK: Readonly<Record<ActionType, RiskClass>> = {
  customer_support: 'low',
  other: 'low',
  legal_advice: 'medium',
  medical_advice: 'medium',
  hr_message: 'medium',
  policy_warning: 'medium',
  suspension: 'high',
  refund_denial: 'high',
}

// The gap between classes (15) is at least the role-mismatch points, so a riskier action never
// scores lower than a milder one whose sender does not fit it.
export const RISK_CLASS_POINTS: Readonly<Record<RiskClass, number>> = { low: 5, medium: 20, high: 35 }
