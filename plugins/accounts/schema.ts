import { z } from 'zod'

/** An Ed25519 private key as a JWK (RFC 8037); `kid` defaults to its RFC 7638 thumbprint. */
const signingKeySchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().min(1),
  d: z.string().min(1),
  kid: z.string().min(1).optional(),
})

export const accountsSchema = z.strictObject({
  /** smtp:// or smtps:// URL of the mail relay; absent: mail goes to the local outbox (`tollgate outbox`). */
  smtpUrl: z.url({ protocol: /^smtps?$/, error: 'smtpUrl must be an smtp:// or smtps:// URL' }).optional(),
  mailFrom: z.string().min(3).default('Tollgate <no-reply@localhost>'),
  /** Base of the links in e-mails, e.g. https://auth.example.com; absent: see links.ts. */
  publicUrl: z.url({ protocol: /^https?$/, error: 'publicUrl must be an http:// or https:// URL' }).optional(),
  /** Absent: generated on first start and kept in the store (in the database with DATABASE_URL, one for every gateway). */
  signingKey: signingKeySchema.optional(),
  issuer: z.string().min(1).default('tollgate'),
  audience: z.string().min(1).default('tollgate'),
  refreshTokenDays: z.number().int().min(1).max(365).default(30),
  invitationHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(72),
  /** Attempts per minute on sign-up, login and magic-link, counted per route. */
  rateLimits: z
    .strictObject({
      perIpPerMinute: z.number().int().positive().default(10),
      perEmailPerMinute: z.number().int().positive().default(5),
    })
    .default({ perIpPerMinute: 10, perEmailPerMinute: 5 }),
  /** Count the attempts in the store so that processes sharing it enforce one limit (set by --workers); with DATABASE_URL they are always counted in the database. */
  shared: z.boolean().default(false),
})

export type AccountsConfig = z.output<typeof accountsSchema>
export type SigningKeyJwk = z.output<typeof signingKeySchema>
