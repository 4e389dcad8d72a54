// The Governor of a project: strict mode, the auto-approve threshold, custom rules (tried on a
// sample text before they are saved) and the models registry.
import { api, projectPath } from '../api.js'
import { when } from '../format.js'
import { SEVERITIES } from '../vocabulary.js'
import { ConfirmButton, ErrorText, fieldsOf, html, Loaded, Status, useAction, useLoad, useState } from '../ui.js'


function Settings({ project, canWrite, onSaved }) {
  const save = useAction()
  const [saved, setSaved] = useState(false)
  const governor = project.governor
  const submit = (event) => {
    const { autoApproveThreshold } = fieldsOf(event)
    const { enabled, strictMode, redactOutput } = event.currentTarget.elements
    setSaved(false)
    save.run(async () => {
      await api('PATCH', `/api/projects/${encodeURIComponent(project.id)}`, {
        governor: {
          enabled: enabled.checked, strictMode: strictMode.checked, redactOutput: redactOutput.checked,
          autoApproveThreshold: Number(autoApproveThreshold),
        },
      })
      setSaved(true)
      onSaved()
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-labelledby="governor-settings">
    <h2 id="governor-settings">Settings</h2>
    ${project.plan === 'free' && html`<p class="note">The Governor is a feature of the Pro plan and above; on Free, requests with governorMetadata are refused.</p>`}
    <fieldset disabled=${!canWrite}>
      <legend class="sr-only">Governor settings</legend>
      <label class="check"><input type="checkbox" name="enabled" defaultChecked=${governor.enabled} /> Check requests that carry governorMetadata</label>
      <label class="check"><input type="checkbox" name="strictMode" defaultChecked=${governor.strictMode} /> Strict mode: block high and critical risk (403, no model call)</label>
      <label class="check"><input type="checkbox" name="redactOutput" defaultChecked=${governor.redactOutput === true} /> Redact output: replace personal data and secrets in the model's answers</label>
      <label>Auto-approve threshold <span class="hint">(0–100: a request scoring below it is approved)</span>
        <input type="number" name="autoApproveThreshold" min="0" max="100" step="1" defaultValue=${governor.autoApproveThreshold} required /></label>
      <${ErrorText} error=${save.error} />
      ${saved && html`<p class="success" role="status">Saved.</p>`}
      ${canWrite && html`<button class="primary" disabled=${save.busy}>Save settings</button>`}
    </fieldset>
  </form>`
}

function Highlighted({ text, matches }) {
  const parts = []
  let at = 0
  for (const match of matches) {
    parts.push(text.slice(at, match.start), html`<mark>${text.slice(match.start, match.end)}</mark>`)
    at = match.end
  }
  parts.push(text.slice(at))
  return html`<p class="sample">${parts}</p>`
}

function NewRule({ project, onAdded }) {
  const add = useAction()
  const trial = useAction()
  const [result, setResult] = useState(undefined)
  const ruleOf = (form) => {
    const { name, pattern, weight, severity, sample } = Object.fromEntries(new FormData(form))
    return { name, pattern, regex: form.elements.regex.checked, weight: Number(weight), severity, sample }
  }
  const tryIt = (event) => {
    const rule = ruleOf(event.currentTarget.form)
    setResult(undefined)
    trial.run(async () => {
      const answer = await api('POST', projectPath(project.id, '/governor/rules/test'), { pattern: rule.pattern, regex: rule.regex, text: rule.sample })
      setResult({ ...answer, text: rule.sample })
    })
  }
  const submit = (event) => {
    event.preventDefault()
    const form = event.currentTarget
    const { sample: _, ...rule } = ruleOf(form)
    add.run(async () => {
      await api('POST', projectPath(project.id, '/compliance/policies'), rule)
      form.reset()
      setResult(undefined)
      onAdded()
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-labelledby="new-rule">
    <h3 id="new-rule">Add a custom rule</h3>
    <label>Name <input name="name" required maxlength="100" /></label>
    <label>Pattern <span class="hint">(a keyword, matched without regard to case, or a regular expression)</span><input name="pattern" required maxlength="200" /></label>
    <label class="check"><input type="checkbox" name="regex" /> The pattern is a regular expression</label>
    <label>Weight <span class="hint">(0–100, added to the risk score per match)</span><input name="weight" type="number" min="0" max="100" step="1" defaultValue="20" required /></label>
    <label>Severity <select name="severity">${SEVERITIES.map((s) => html`<option defaultSelected=${s === 'HIGH'}>${s}</option>`)}</select></label>
    <label>Sample text to try the rule on <textarea name="sample" rows="3"></textarea></label>
    <div class="actions">
      <button type="button" onClick=${tryIt} disabled=${trial.busy}>Test rule</button>
      <button class="primary" disabled=${add.busy}>Save rule</button>
    </div>
    <${ErrorText} error=${trial.error ?? add.error} />
    <div role="status">${result !== undefined && html`
      <p><strong>${result.matched ? `Matches ${result.count} time${result.count === 1 ? '' : 's'}.` : 'No match in the sample.'}</strong></p>
      ${result.matched && html`<${Highlighted} text=${result.text} matches=${result.matches} />`}`}
    </div>
  </form>`
}

function Rules({ project, canWrite, onChanged }) {
  const remove = useAction()
  const rules = project.governor.customRules
  return html`<section aria-labelledby="rules-title">
    <h2 id="rules-title">Custom rules</h2>
    <${ErrorText} error=${remove.error} />
    <table>
      <caption>Custom rules of ${project.name}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Pattern</th><th scope="col">Kind</th><th scope="col" class="num">Weight</th><th scope="col">Severity</th>${canWrite && html`<th scope="col">Actions</th>`}</tr></thead>
      <tbody>
        ${rules.map((rule) => html`<tr><td>${rule.name}</td><td><code>${rule.pattern}</code></td><td>${rule.regex ? 'regex' : 'keyword'}</td>
          <td class="num">${rule.weight}</td><td>${rule.severity}</td>
          ${canWrite && html`<td><${ConfirmButton} label="Remove" danger title=${`Remove the rule “${rule.name}”?`} confirmLabel="Remove rule"
            question="Requests are no longer checked against it." onConfirm=${() => remove.run(async () => {
              await api('DELETE', projectPath(project.id, `/compliance/policies/${encodeURIComponent(rule.id)}`))
              onChanged()
            })} /></td>`}</tr>`)}
        ${rules.length === 0 && html`<tr><td colspan="6" class="muted">No custom rules.</td></tr>`}
      </tbody>
    </table>
    ${canWrite && html`<${NewRule} project=${project} onAdded=${onChanged} />`}
  </section>`
}

function Models({ project, canWrite }) {
  const models = useLoad(() => api('GET', `${projectPath(project.id, '/compliance/models')}?limit=200`), [project.id])
  const decide = useAction()
  const setApproval = (model, approvalStatus) => decide.run(async () => {
    await api('PATCH', projectPath(project.id, `/compliance/models/${encodeURIComponent(model.id)}`), { approvalStatus })
    models.reload()
  })
  return html`<section aria-labelledby="models-title">
    <h2 id="models-title">Models registry</h2>
    <p class="muted">A model is registered the first time a governed request uses it.</p>
    <${ErrorText} error=${decide.error} />
    <${Loaded} state=${models} what="the models registry">${(page) => html`<table>
      <caption>Models used by ${project.name}</caption>
      <thead><tr><th scope="col">Provider</th><th scope="col">Model</th><th scope="col">Risk</th><th scope="col">Approval</th><th scope="col">Registered</th>${canWrite && html`<th scope="col">Actions</th>`}</tr></thead>
      <tbody>
        ${page.data.map((m) => html`<tr><td>${m.provider}</td><td>${m.model}</td><td>${m.riskClassification}</td><td><${Status} value=${m.approvalStatus} /></td><td>${when(m.createdAt)}</td>
          ${canWrite && html`<td class="actions">
            <button type="button" disabled=${m.approvalStatus === 'approved'} onClick=${() => setApproval(m, 'approved')}>Approve</button>
            <button type="button" disabled=${m.approvalStatus === 'rejected'} onClick=${() => setApproval(m, 'rejected')}>Reject</button></td>`}</tr>`)}
        ${page.data.length === 0 && html`<tr><td colspan="6" class="muted">No models registered yet.</td></tr>`}
      </tbody>
    </table>`}<//>
  </section>`
}

export function Governor({ project, canWrite, reloadProjects }) {
  return html`<section>
    <h1>Governor <span class="muted">· ${project.name}</span></h1>
    <${Settings} key=${project.id} project=${project} canWrite=${canWrite} onSaved=${reloadProjects} />
    <${Rules} project=${project} canWrite=${canWrite} onChanged=${reloadProjects} />
    <${Models} project=${project} canWrite=${canWrite} />
  </section>`
}
