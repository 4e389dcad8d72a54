// The Governor's records, whichever store holds them (index.ts picks): LMDB on one host
// (lmdb/records.ts), PostgreSQL when several gateways share DATABASE_URL (postgres/records.ts).
// Either way an audit record commits with its violations, its alert, a model's first
// registration, the open-violation counts and their events, and a project's chain has one
// writer at a time.
import type { Severity, ViolationType } from '../logic/verdict/types.ts'
import type { Page, PageQuery } from './page.ts'
import type {
  Alert,
  AlertStatus,
  AlertType,
  AuditDraft,
  AuditHead,
  AuditRecord,
  Case,
  CaseStatus,
  ModelApproval,
  ModelEntry,
  ModelRisk,
  Violation,
  ViolationStatus,
} from './types.ts'

export interface AuditEntry {
  readonly draft: AuditDraft
  readonly violations: readonly Violation[]
  readonly alert: Alert | undefined
  /** Added to the models registry unless the project already has that provider and model. */
  readonly model: ModelEntry | undefined
}

export interface AuditTrail {
  /** Chains the draft after the project's head and commits it with everything the entry holds. */
  append(entry: AuditEntry): Promise<AuditRecord>
  /** A project's record by audit id; another project's is undefined. */
  get(projectId: string, auditId: string): Promise<AuditRecord | undefined>
}

/** A stored chain link as found, before it is checked: `value` may be anything. */
interface ChainLink {
  /** The position it is stored at. */
  readonly seq: number
  readonly value: unknown
}

/** Reads a project's chain in pages, for the check of it. */
export interface AuditChain {
  /** Up to `limit` links after `afterSeq` and up to `throughSeq`, in order. */
  links(projectId: string, afterSeq: number, throughSeq: number, limit: number): Promise<readonly ChainLink[]>
  head(projectId: string): Promise<AuditHead | undefined>
}

interface ViolationFilter {
  readonly status?: ViolationStatus | undefined
  readonly type?: ViolationType | undefined
  readonly severity?: Severity | undefined
}

export interface Violations {
  list(projectId: string, query: PageQuery, filter: ViolationFilter): Promise<Page<Violation>>
  get(projectId: string, id: string): Promise<Violation>
  /** Every violation found from `since` on (epoch milliseconds), oldest first. */
  since(projectId: string, since: number): Promise<readonly Violation[]>
  resolve(projectId: string, id: string): Promise<Violation>
}

interface AlertFilter {
  readonly status?: AlertStatus | undefined
  readonly type?: AlertType | undefined
  readonly severity?: Severity | undefined
}

export interface Alerts {
  list(projectId: string, query: PageQuery, filter: AlertFilter): Promise<Page<Alert>>
  get(projectId: string, id: string): Promise<Alert>
  acknowledge(projectId: string, id: string): Promise<Alert>
  resolve(projectId: string, id: string): Promise<Alert>
}

export interface NewCase {
  readonly title: string
  readonly violationIds: readonly string[]
  readonly note?: string | undefined
}

export interface CaseChanges {
  readonly status?: CaseStatus | undefined
  /** Appended to the case's notes. */
  readonly note?: string | undefined
}

interface CaseFilter {
  readonly status?: CaseStatus | undefined
  readonly severity?: Severity | undefined
}

/** Resolving a case resolves its violations that are still open. */
export interface Cases {
  create(projectId: string, input: NewCase): Promise<Case>
  list(projectId: string, query: PageQuery, filter: CaseFilter): Promise<Page<Case>>
  get(projectId: string, id: string): Promise<Case>
  update(projectId: string, id: string, changes: CaseChanges): Promise<Case>
  /** An explicit resolution: a case already resolved is a conflict. */
  resolve(projectId: string, id: string): Promise<Case>
}

export interface NewModel {
  readonly provider: string
  readonly model: string
  readonly riskClassification: ModelRisk
  readonly approvalStatus: ModelApproval
  readonly notes?: string | undefined
}

export interface ModelChanges {
  readonly riskClassification?: ModelRisk | undefined
  readonly approvalStatus?: ModelApproval | undefined
  readonly notes?: string | null | undefined
}

interface ModelFilter {
  readonly status?: ModelApproval | undefined
  readonly risk?: ModelRisk | undefined
  readonly provider?: string | undefined
}

/** One entry per provider and model; entries also appear on a model's first governed use (AuditTrail.append). */
export interface ModelsRegistry {
  list(projectId: string, query: PageQuery, filter: ModelFilter): Promise<Page<ModelEntry>>
  get(projectId: string, id: string): Promise<ModelEntry>
  /** The project's entry for that provider and model, if it has one. */
  registered(projectId: string, provider: string, model: string): Promise<ModelEntry | undefined>
  create(projectId: string, input: NewModel): Promise<ModelEntry>
  update(projectId: string, id: string, changes: ModelChanges): Promise<ModelEntry>
  /** The next governed use of the model registers it again, as pending. */
  remove(projectId: string, id: string): Promise<ModelEntry>
}

export interface GovernorRecords {
  readonly trail: AuditTrail
  readonly chain: AuditChain
  readonly violations: Violations
  readonly alerts: Alerts
  readonly cases: Cases
  readonly models: ModelsRegistry
}
