// Views live in the URL's fragment (#/keys, #/verify?token=…): the server serves one page, and a
// token in a mailed link's fragment never reaches a server log or a Referer header.
import { useEffect, useState } from './ui.js'

export function parseHash(hash) {
  const [path, search = ''] = hash.replace(/^#\/?/, '').split('?')
  return { name: path || '', params: Object.fromEntries(new URLSearchParams(search)) }
}

export function navigate(name) {
  location.hash = `#/${name}`
}

/** Removes a one-time token from the address bar and the history once it has been read. */
export function forgetParams(name) {
  history.replaceState(null, '', `${location.pathname}#/${name}`)
}

export function useRoute() {
  const [route, setRoute] = useState(() => parseHash(location.hash))
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash))
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}
