// The view layer's building blocks: htm bound to Preact, the hooks, and the few components every
// view uses (errors, confirmations, loading, actions). No view talks to the DOM any other way.
import { h, render } from '../vendor/preact.mjs'
import { useCallback, useEffect, useRef, useState } from '../vendor/preact-hooks.mjs'
import htm from '../vendor/htm.mjs'

export const html = htm.bind(h)
export { render, useCallback, useEffect, useRef, useState }

/** Loads with `load` whenever `deps` change; `reload` loads again. */
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: undefined, error: undefined, loading: true })
  const [round, setRound] = useState(0)
  useEffect(() => {
    let current = true
    setState((previous) => ({ ...previous, loading: true }))
    load().then(
      (data) => current && setState({ data, error: undefined, loading: false }),
      (error) => current && setState({ data: undefined, error, loading: false }),
    )
    return () => {
      current = false
    }
  }, [...deps, round])
  return { ...state, reload: useCallback(() => setRound((r) => r + 1), []) }
}

/** Runs one action at a time and keeps its error for display. */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState(undefined)
  const run = async (work) => {
    setBusy(true)
    setError(undefined)
    try {
      return await work()
    } catch (err) {
      setError(err)
      return undefined
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, run, clear: () => setError(undefined) }
}

export function ErrorText({ error }) {
  if (error === undefined || error === null) return null
  const issues = error.body?.issues ?? []
  return html`<div class="error" role="alert">
    <strong>Error: </strong>${error.message}
    ${issues.length > 1 && html`<ul>${issues.map((issue) => html`<li>${issue.message}</li>`)}</ul>`}
  </div>`
}

export function Loading({ what }) {
  return html`<p class="muted" role="status">Loading ${what}…</p>`
}

/** Shows `children` once loaded, the error if it failed. */
export function Loaded({ state, what, children }) {
  if (state.error !== undefined) return html`<${ErrorText} error=${state.error} />`
  if (state.data === undefined) return html`<${Loading} what=${what} />`
  return children(state.data)
}

/**
 * A button that asks before it acts, in a modal dialog: Escape or Cancel closes it, and focus
 * starts on Cancel so that Enter alone never confirms.
 */
let dialogs = 0

export function ConfirmButton({ label, title, question, confirmLabel, onConfirm, danger = false, disabled = false }) {
  const dialog = useRef(null)
  const cancel = useRef(null)
  const titleId = useRef(`confirm-${++dialogs}`).current
  const open = () => {
    dialog.current.showModal()
    cancel.current.focus()
  }
  const confirm = async () => {
    dialog.current.close()
    await onConfirm()
  }
  return html`
    <button type="button" class=${danger ? 'danger' : ''} onClick=${open} disabled=${disabled}>${label}</button>
    <dialog ref=${dialog} aria-labelledby=${titleId}>
      <h2 id=${titleId}>${title}</h2>
      <p>${question}</p>
      <div class="actions">
        <button type="button" ref=${cancel} onClick=${() => dialog.current.close()}>Cancel</button>
        <button type="button" class=${danger ? 'danger' : 'primary'} onClick=${confirm}>${confirmLabel}</button>
      </div>
    </dialog>`
}

/** A status word with a shape beside it, so it reads the same without colour. */
export function Status({ value }) {
  const good = ['active', 'approved', 'succeeded', 'resolved', 'intact'].includes(value)
  const bad = ['inactive', 'rejected', 'failed', 'open', 'broken'].includes(value)
  const mark = good ? '✓' : bad ? '✕' : '•'
  return html`<span class=${`status ${good ? 'good' : bad ? 'bad' : 'neutral'}`}><span aria-hidden="true">${mark} </span>${value}</span>`
}

/** A row of toggle buttons that picks one value. */
export function Choice({ label, options, value, onChange }) {
  return html`<div class="choice" role="group" aria-label=${label}>
    ${options.map(([option, text]) => html`<button type="button" aria-pressed=${String(option === value)} onClick=${() => onChange(option)}>${text}</button>`)}
  </div>`
}

/** The value of a form's field by name. */
export function fieldsOf(event) {
  event.preventDefault()
  return Object.fromEntries(new FormData(event.currentTarget))
}
