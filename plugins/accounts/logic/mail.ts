// What the accounts plugin e-mails, and the one interface both delivery paths implement.

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
  /** The links in the text, kept apart so the outbox can list them. */
  readonly links: readonly string[]
}

export interface Mailer {
  send(mail: Mail): Promise<void>
  close(): Promise<void>
}

export function verificationMail(to: string, link: string): Mail {
  return {
    to,
    subject: 'Verify your e-mail address',
    links: [link],
    text: `Welcome to Tollgate.\n\nOpen this link within 24 hours to verify your address:\n${link}\n\nIf you did not sign up, ignore this message.\n`,
  }
}

export function accountExistsMail(to: string): Mail {
  return {
    to,
    subject: 'You already have a Tollgate account',
    links: [],
    text:
      'Someone, perhaps you, tried to sign up with this address, which already has an account.\n\n' +
      'Log in with your password, or ask for a sign-in link. If it was not you, no action is needed.\n',
  }
}

export function magicLinkMail(to: string, link: string): Mail {
  return {
    to,
    subject: 'Your sign-in link',
    links: [link],
    text: `Open this link within one hour to sign in. It works once:\n${link}\n\nIf you did not ask for it, ignore this message.\n`,
  }
}

/** The link carries the token for a front end; the accept route itself takes it by POST. */
export function invitationMail(to: string, organizationName: string, acceptUrl: string, token: string): Mail {
  const link = `${acceptUrl}?token=${token}`
  return {
    to,
    subject: `You are invited to ${organizationName} on Tollgate`,
    links: [link],
    text:
      `You have been invited to join ${organizationName} on Tollgate. Your invitation, usable once:\n${link}\n\n` +
      `To accept, send POST ${acceptUrl} with the body {"token": "${token}"}; add "password" to set one for a new account.\n`,
  }
}
