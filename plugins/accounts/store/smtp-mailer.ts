// Mail through an SMTP relay (config smtpUrl, env SMTP_URL).
import { createTransport } from 'nodemailer'
import type { Mailer } from '../logic/mail.ts'

export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = createTransport(smtpUrl)
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text })
    },
    async close() {
      transport.close()
    },
  }
}
