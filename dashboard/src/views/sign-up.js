// Sign-up: an account and its organization; the address is verified by the mailed link before
// the first sign-in.
import { publicApi } from '../api.js'
import { ErrorText, fieldsOf, html, useAction, useState } from '../ui.js'

export function SignUp() {
  const signup = useAction()
  const [done, setDone] = useState(undefined)
  const submit = (event) => {
    const { email, password, organizationName } = fieldsOf(event)
    signup.run(async () => setDone((await publicApi('POST', '/api/auth/signup', { email, password, organizationName })).message))
  }
  if (done !== undefined) {
    return html`<section class="card narrow"><h1>Check your inbox</h1><p role="status">${done}</p><p><a href="#/sign-in">Back to sign in</a></p></section>`
  }
  return html`<section class="card narrow">
    <h1>Create your Tollgate account</h1>
    <form onSubmit=${submit}>
      <label>E-mail <input name="email" type="email" autocomplete="email" required /></label>
      <label>Password <span class="hint">(at least 6 characters)</span>
        <input name="password" type="password" autocomplete="new-password" minlength="6" required /></label>
      <label>Organization name <input name="organizationName" autocomplete="organization" required /></label>
      <${ErrorText} error=${signup.error} />
      <button class="primary" disabled=${signup.busy}>Create account</button>
    </form>
    <p>Have an account? <a href="#/sign-in">Sign in</a>.</p>
  </section>`
}
