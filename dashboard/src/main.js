import { resumeSession } from './api.js'
import { App } from './app.js'
import { html, render } from './ui.js'

// A reload or a new tab shows the signed-in dashboard at once rather than the sign-in page first.
resumeSession().finally(() => render(html`<${App} />`, document.getElementById('app')))
