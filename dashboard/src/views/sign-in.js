// Sign in with a password, or ask for a one-time sign-in link by e-mail.
import { publicApi, startSession } from '../api.js'
import { navigate } from '../router.js'
import { ErrorText, fieldsOf, html, useAction, useState } from '../ui.js'

export function SignIn() {
  const login = useAction()
  const magic = useAction()
  const [sent, setSent] = useState(undefined)

  const signIn = (event) => {
    const { email, password } = fieldsOf(event)
    login.run(async () => {
      startSession(await publicApi('POST', '/api/auth/login', { email, password }))
      navigate('overview')
    })
  }
  const askForLink = (event) => {
    const { email } = fieldsOf(event)
    magic.run(async () => setSent((await publicApi('POST', '/api/auth/magic-link', { email })).message))
  }

  return html`<section class="card narrow">
    <h1>Sign in to Tollgate</h1>
    <form onSubmit=${signIn}>
      <label>E-mail <input name="email" type="email" autocomplete="username" required /></label>
      <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
      <${ErrorText} error=${login.error} />
      <button class="primary" disabled=${login.busy}>Sign in</button>
    </form>
    <h2>Or sign in by e-mail</h2>
    <form onSubmit=${askForLink}>
      <label>E-mail <input name="email" type="email" autocomplete="username" required /></label>
      <${ErrorText} error=${magic.error} />
      ${sent !== undefined && html`<p class="success" role="status">${sent}</p>`}
      <button disabled=${magic.busy}>Send me a sign-in link</button>
    </form>
    <p>New here? <a href="#/sign-up">Create an account</a>.</p>
  </section>`
}
