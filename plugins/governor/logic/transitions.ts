// Allowed status changes of alerts, cases and violations; anything else is a 409.
import { ConflictError } from '../../../proxy/pipeline/errors.ts'
import type { AlertStatus, CaseStatus, ViolationStatus } from '../store/types.ts'

export const ALERT_TRANSITIONS: Readonly<Record<AlertStatus, readonly AlertStatus[]>> = {
  open: ['acknowledged', 'resolved'],
  acknowledged: ['resolved'],
  resolved: [],
}

export const CASE_TRANSITIONS: Readonly<Record<CaseStatus, readonly CaseStatus[]>> = {
  open: ['investigating', 'resolved'],
  investigating: ['open', 'resolved'],
  resolved: [],
}

export const VIOLATION_TRANSITIONS: Readonly<Record<ViolationStatus, readonly ViolationStatus[]>> = {
  open: ['resolved'],
  resolved: [],
}

export function assertTransition<S extends string>(what: string, id: string, from: S, to: S, allowed: Readonly<Record<S, readonly S[]>>): void {
  if (!allowed[from].includes(to)) throw new ConflictError(`The ${what} ${id} is ${from}; it cannot become ${to}.`)
}
