// The pages that mailed links open: e-mail verification, a magic sign-in link, an invitation. Each
// reads the token from the address, removes it from the address bar, and calls the account API.
import { publicApi, startSession } from '../api.js'
import { forgetParams, navigate } from '../router.js'
import { ErrorText, fieldsOf, html, Loading, useAction, useEffect, useRef, useState } from '../ui.js'

/** The token of the link that opened the page, read once. */
function useLinkToken(name, params) {
  const token = useRef(params.token).current
  useEffect(() => {
    if (params.token !== undefined) forgetParams(name)
  }, [])
  return token
}

/** Runs `work` once with the token and shows its outcome. */
function useOnce(token, work) {
  const [state, setState] = useState({ done: false })
  useEffect(() => {
    if (token === undefined) return
    work(token).then((message) => setState({ done: true, message }), (error) => setState({ done: true, error }))
  }, [])
  return state
}

const missing = html`<p class="error" role="alert">This link has no token. Open the link from the e-mail as it is.</p>`

export function VerifyEmail({ params }) {
  const token = useLinkToken('verify', params)
  const state = useOnce(token, async (t) => (await publicApi('GET', `/api/auth/verify?token=${encodeURIComponent(t)}`)).message)
  return html`<section class="card narrow">
    <h1>Verify your e-mail address</h1>
    ${token === undefined ? missing : !state.done ? html`<${Loading} what="the verification" />`
      : state.error !== undefined ? html`<${ErrorText} error=${state.error} />`
      : html`<p class="success" role="status">${state.message}</p>`}
    <p><a href="#/sign-in">Sign in</a></p>
  </section>`
}

export function MagicLink({ params }) {
  const token = useLinkToken('magic', params)
  const state = useOnce(token, async (t) => {
    startSession(await publicApi('POST', '/api/auth/magic-link/verify', { token: t }))
    navigate('overview')
  })
  return html`<section class="card narrow">
    <h1>Signing you in</h1>
    ${token === undefined ? missing : state.error !== undefined ? html`<${ErrorText} error=${state.error} /><p><a href="#/sign-in">Ask for a new link</a></p>`
      : html`<${Loading} what="your session" />`}
  </section>`
}

export function AcceptInvitation({ params }) {
  const token = useLinkToken('invitation', params)
  const accept = useAction()
  const submit = (event) => {
    const { password } = fieldsOf(event)
    accept.run(async () => {
      startSession(await publicApi('POST', '/api/orgs/invitations/accept', password === '' ? { token } : { token, password }))
      navigate('overview')
    })
  }
  return html`<section class="card narrow">
    <h1>Join your team on Tollgate</h1>
    ${token === undefined ? missing : html`<form onSubmit=${submit}>
      <p>Accept the invitation to join the organization that sent it.</p>
      <label>Password for your new account <span class="hint">(at least 6 characters; leave empty to sign in by e-mail links only)</span>
        <input name="password" type="password" autocomplete="new-password" minlength="6" /></label>
      <${ErrorText} error=${accept.error} />
      <button class="primary" disabled=${accept.busy}>Accept invitation</button>
    </form>`}
  </section>`
}
