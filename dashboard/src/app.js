// The shell: who is signed in, their organization and projects, the navigation, and which view
// shows. Views get the chosen project and whether the member's role may make changes.
import { api, currentSession, onSessionChange, signOut } from './api.js'
import { navigate, useRoute } from './router.js'
import { ErrorText, html, Loading, useEffect, useLoad, useState } from './ui.js'
import { AuditLog } from './views/audit-log.js'
import { Compliance } from './views/compliance.js'
import { Governor } from './views/governor.js'
import { Keys } from './views/keys.js'
import { AcceptInvitation, MagicLink, VerifyEmail } from './views/links.js'
import { Members } from './views/members.js'
import { Overview } from './views/overview.js'
import { Projects } from './views/projects.js'
import { SignIn } from './views/sign-in.js'
import { SignUp } from './views/sign-up.js'
import { Webhooks } from './views/webhooks.js'

const PUBLIC_VIEWS = { 'sign-in': SignIn, 'sign-up': SignUp, verify: VerifyEmail, magic: MagicLink, invitation: AcceptInvitation }

const NAVIGATION = [
  ['AI Gateway', [['overview', 'Overview', Overview], ['keys', 'Manage Keys', Keys]]],
  ['Compliance', [['governor', 'Governor', Governor], ['compliance', 'Compliance', Compliance], ['webhooks', 'Webhooks', Webhooks]]],
  ['Organization', [['projects', 'Projects', Projects], ['members', 'Members', Members], ['audit-log', 'Audit log', AuditLog, 'owner']]],
]
const MEMBER_VIEWS = Object.fromEntries(NAVIGATION.flatMap(([, items]) => items.map(([name, , view]) => [name, view])))
/** Views that need a role: the API refuses the others anyway, so the navigation does not offer them. */
const VIEW_ROLES = Object.fromEntries(NAVIGATION.flatMap(([, items]) => items.filter((item) => item[3] !== undefined).map(([name, , , role]) => [name, role])))
const ORGANIZATION_VIEWS = new Set(['projects', 'members', 'audit-log'])

function useSession() {
  const [session, setSession] = useState(currentSession)
  useEffect(() => onSessionChange(setSession), [])
  return session
}

export function App() {
  const session = useSession()
  const route = useRoute()
  const Public = PUBLIC_VIEWS[route.name]
  // Link pages work signed in or not: a magic link may replace a session.
  if (Public !== undefined && (session === null || route.name !== 'sign-in')) {
    return html`<main class="public" id="main"><${Public} params=${route.params} /></main>`
  }
  if (session === null) return html`<main class="public" id="main"><${SignIn} params=${{}} /></main>`
  return html`<${Workspace} session=${session} route=${route} />`
}

function Workspace({ session, route }) {
  const organization = useLoad(() => api('GET', '/api/orgs/me'), [session.user?.id])
  const projects = useLoad(() => api('GET', '/api/projects').then((answer) => answer.projects), [session.user?.id])
  const [projectId, setProjectId] = useState(undefined)
  // Choosing the section already shown loads it afresh.
  const [round, setRound] = useState(0)
  const list = projects.data ?? []
  const project = list.find((p) => p.id === projectId) ?? list[0]
  const role = organization.data?.role
  const canWrite = role === 'owner' || role === 'admin'
  const viewName = MEMBER_VIEWS[route.name] === undefined ? 'overview' : route.name
  const View = MEMBER_VIEWS[viewName]
  const needsProject = !ORGANIZATION_VIEWS.has(viewName)
  const offered = (name) => VIEW_ROLES[name] === undefined || VIEW_ROLES[name] === role

  let content
  if (organization.error !== undefined || projects.error !== undefined) content = html`<${ErrorText} error=${organization.error ?? projects.error} />`
  else if (organization.data === undefined || projects.data === undefined) content = html`<${Loading} what="your organization" />`
  else if (needsProject && project === undefined) {
    content = html`<section><h1>Welcome</h1><p>Your organization has no project yet.</p>
      ${canWrite ? html`<p><a href="#/projects">Create your first project</a> to get API keys.</p>` : html`<p>Ask an admin to create one.</p>`}</section>`
  } else {
    content = html`<${View} key=${`${viewName}-${project?.id}-${round}`} project=${project} projects=${list} organization=${organization.data}
      canWrite=${canWrite} params=${route.params} reloadProjects=${projects.reload} selectProject=${setProjectId} />`
  }

  return html`
    <a class="skip" href="#main" onClick=${(e) => { e.preventDefault(); document.getElementById('main').focus() }}>Skip to content</a>
    <header class="top">
      <span class="brand">Tollgate</span>
      <span class="org">${organization.data?.name}${role !== undefined && html` <span class="badge">${role}</span>`}</span>
      ${list.length > 0 && html`<label class="project-picker">Project
        <select value=${project?.id} onChange=${(e) => setProjectId(e.currentTarget.value)}>
          ${list.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
        </select></label>`}
      <span class="who">${session.user?.email}</span>
      <button type="button" onClick=${() => signOut().then(() => navigate('sign-in'))}>Sign out</button>
    </header>
    <div class="frame">
      <nav aria-label="Dashboard">
        ${NAVIGATION.map(([group, items]) => html`<h2>${group}</h2><ul>
          ${items.filter(([name]) => offered(name)).map(([name, label]) => html`<li><a href=${`#/${name}`} aria-current=${name === viewName ? 'page' : undefined}
            onClick=${() => name === viewName && setRound((r) => r + 1)}>${label}</a></li>`)}
        </ul>`)}
      </nav>
      <main id="main" tabindex="-1">
        ${!canWrite && role !== undefined && html`<p class="note">You are a member: you can see everything here; an admin makes changes.</p>`}
        ${content}
      </main>
    </div>`
}
