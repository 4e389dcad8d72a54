// The accounts config section: its defaults, and errors that name the setting.
import t from 'tap'
import { pluginConfigError, pluginSection } from '../../helpers/plugin-config.ts'

t.test('every setting has a default; mail goes to the local outbox and the signing key is generated', async (t) => {
  t.strictSame(pluginSection('accounts'), {
    mailFrom: 'Tollgate <no-reply@localhost>',
    issuer: 'tollgate',
    audience: 'tollgate',
    refreshTokenDays: 30,
    invitationHours: 72,
    rateLimits: { perIpPerMinute: 10, perEmailPerMinute: 5 },
    shared: false,
  })
})

t.test('a bad value is refused with its path, or its variable', async (t) => {
  t.equal(
    pluginConfigError('accounts', { smtpUrl: 'http://mail.example' }),
    'invalid configuration: plugins.accounts.smtpUrl: smtpUrl must be an smtp:// or smtps:// URL',
  )
  t.equal(pluginConfigError('accounts', {}, { SMTP_URL: 'not a url' }), 'invalid configuration: SMTP_URL: smtpUrl must be an smtp:// or smtps:// URL')
  t.equal(
    pluginConfigError('accounts', { publicUrl: 'ftp://auth.example' }),
    'invalid configuration: plugins.accounts.publicUrl: publicUrl must be an http:// or https:// URL',
  )
  t.match(pluginConfigError('accounts', { refreshTokenDays: 366 }), /^invalid configuration: plugins\.accounts\.refreshTokenDays: Too big/)
  t.match(
    pluginConfigError('accounts', { rateLimits: { perIpPerMinute: 0 } }),
    /^invalid configuration: plugins\.accounts\.rateLimits\.perIpPerMinute: Too small/,
  )
  t.match(
    pluginConfigError('accounts', { signingKey: { kty: 'RSA', crv: 'Ed25519', x: 'x', d: 'd' } }),
    /^invalid configuration: plugins\.accounts\.signingKey\.kty: /,
  )
})
