// The accounts plugin's records behave alike in both stores: refresh-token rotation with its
// reasons for refusal, one-time tokens taken once and only as their kind, the expired ones swept
// at start, and a removed member's sessions ended.
import t, { type Test } from 'tap'
import pino from 'pino'
import type { AccountStore } from '../../../../plugins/accounts/store/account-store.ts'
import { openLmdbAccountStore } from '../../../../plugins/accounts/store/lmdb/account-store.ts'
import { openPostgresAccountStore } from '../../../../plugins/accounts/store/postgres/account-store.ts'
import { accountsSchema } from '../../../../plugins/accounts/schema.ts'
import type { User } from '../../../../plugins/accounts/store/users.ts'
import { openDatabase } from '../../../../proxy/stores/database.ts'
import { openStore } from '../../../../proxy/stores/store.ts'
import { freshDataDir } from '../../../helpers/start-gateway.ts'
import { freshDatabase, skipWithout, STORE_KINDS, type StoreKind } from '../helpers.ts'
import { type ManualClock, manualClock } from '../../../helpers/manual-clock.ts'

const LIFETIME_MS = 3_600_000
const config = accountsSchema.parse({})

async function openAccountStore(t: Test, kind: StoreKind, clock: ManualClock): Promise<AccountStore> {
  if (kind === 'lmdb') {
    const store = openStore(freshDataDir(t))
    t.teardown(() => store.close())
    return openLmdbAccountStore(store.forPlugin('accounts'), clock, config, LIFETIME_MS)
  }
  const log = pino({ level: 'silent' })
  const database = openDatabase(await freshDatabase(t), log, { maxConnections: 4 })
  t.teardown(() => database.close())
  return openPostgresAccountStore(database.forPlugin('accounts'), clock, config, LIFETIME_MS, log)
}

/** An owner with an organization, who may hold sessions. */
async function owner(records: AccountStore, clock: ManualClock): Promise<User> {
  const outcome = await records.changes.signUp({
    email: 'owner@example.com',
    passwordHash: 'hash',
    organizationName: 'Org',
    createdAt: new Date(clock.now()).toISOString(),
  })
  return outcome.created!
}

for (const kind of STORE_KINDS) {
  t.test(
    `${kind}: refresh tokens rotate once; a reuse revokes the family; unknown, expired and revoked tokens are refused`,
    { skip: skipWithout(kind) },
    async (t) => {
      const clock = manualClock()
      const records = await openAccountStore(t, kind, clock)
      const { refreshTokens } = records
      const userId = (await owner(records, clock)).id
      const first = await refreshTokens.start(userId, clock.now())
      const second = await refreshTokens.rotate(first.token, clock.now())
      t.match(second, { ok: true, familyId: first.familyId, userId })
      t.same(await refreshTokens.rotate(first.token, clock.now()), { ok: false, reason: 'reused' })
      t.same(await refreshTokens.rotate(second.ok ? second.token : '', clock.now()), { ok: false, reason: 'revoked' }, 'the reuse revoked the newest token')
      t.equal(await refreshTokens.isLive(first.familyId, clock.now()), false)
      t.same(await refreshTokens.rotate('x'.repeat(43), clock.now()), { ok: false, reason: 'unknown' })

      const other = await refreshTokens.start(userId, clock.now())
      t.equal(await refreshTokens.isLive(other.familyId, clock.now()), true)
      clock.advance(LIFETIME_MS)
      t.same(await refreshTokens.rotate(other.token, clock.now()), { ok: false, reason: 'expired' })
      t.equal(await refreshTokens.isLive(other.familyId, clock.now()), false)
      await refreshTokens.removeExpired(clock.now())
      t.same(await refreshTokens.rotate(other.token, clock.now()), { ok: false, reason: 'unknown' }, 'swept')

      const third = await refreshTokens.start(userId, clock.now())
      t.equal(await refreshTokens.revokeByToken(third.token), true)
      t.same(await refreshTokens.rotate(third.token, clock.now()), { ok: false, reason: 'revoked' })
      t.equal(await refreshTokens.revokeByToken('y'.repeat(43)), false)
    },
  )

  t.test(`${kind}: a one-time token is taken once, only as its kind, and not after it expired`, { skip: skipWithout(kind) }, async (t) => {
    const clock = manualClock()
    const { oneTimeTokens } = await openAccountStore(t, kind, clock)
    const token = await oneTimeTokens.issue({ kind: 'magic', userId: 'u1' }, clock.now() + 1000)
    t.equal(await oneTimeTokens.take('verify', token, clock.now()), undefined, 'not as another kind')
    t.same(await oneTimeTokens.peek('magic', token, clock.now()), { kind: 'magic', userId: 'u1' }, 'and it is still there')
    const taken = await Promise.all([oneTimeTokens.take('magic', token, clock.now()), oneTimeTokens.take('magic', token, clock.now())])
    t.same(
      taken.filter((payload) => payload !== undefined),
      [{ kind: 'magic', userId: 'u1' }],
      'taken once',
    )

    const late = await oneTimeTokens.issue({ kind: 'magic', userId: 'u2' }, clock.now() + 1000)
    clock.advance(1000)
    t.equal(await oneTimeTokens.peek('magic', late, clock.now()), undefined)
    t.equal(await oneTimeTokens.take('magic', late, clock.now()), undefined)
  })

  t.test(`${kind}: an invitation is accepted once, and a removed member's sessions end`, { skip: skipWithout(kind) }, async (t) => {
    const clock = manualClock()
    const records = await openAccountStore(t, kind, clock)
    const founder = await owner(records, clock)
    const organization = (await records.organizations.get(founder.organizationId!))!
    const invite = { kind: 'invite' as const, organizationId: organization.id, email: 'member@example.com', role: 'member' as const, invitedBy: founder.id }
    const token = await records.oneTimeTokens.issue(invite, clock.now() + 1000)
    const joinedAt = new Date(clock.now()).toISOString()
    const { user, invitation } = await records.changes.acceptInvitation(token, clock.now(), 'hash', joinedAt)
    t.same(invitation, invite)
    t.match(user, { email: 'member@example.com', verified: true, organizationId: organization.id })
    await t.rejects(records.changes.acceptInvitation(token, clock.now(), 'hash', joinedAt), { message: /invalid, expired or already used/ }, 'once')
    t.equal((await records.organizations.members(organization.id)).length, 2)

    const session = await records.refreshTokens.start(user.id, clock.now())
    const asOwner = { user: founder, organization, role: 'owner' as const, familyId: 'f' }
    await t.rejects(records.changes.removeMember(asOwner, founder.id), { message: /at least one owner/ }, 'the last owner stays')
    t.match(await records.changes.removeMember(asOwner, user.id), { userId: user.id, role: 'member' })
    t.equal(await records.refreshTokens.isLive(session.familyId, clock.now()), false)
    t.same(await records.refreshTokens.rotate(session.token, clock.now()), { ok: false, reason: 'revoked' })
    t.equal((await records.users.byId(user.id))!.organizationId, null)
  })
}
