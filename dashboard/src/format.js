// How numbers, money and times read in the dashboard.

const whole = new Intl.NumberFormat('en-US')
const cents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
const micro = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 })
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })

export const count = (n) => whole.format(n)

/** Dollars; amounts under a cent keep their micro-dollars. */
export const money = (dollars) => (dollars !== 0 && Math.abs(dollars) < 0.01 ? micro : cents).format(dollars)

/** One decimal; a share too small to show as 0.1% says so rather than 0%. */
export const percent = (n) => (n > 0 && n < 0.05 ? 'under 0.1%' : `${Math.round(n * 10) / 10}%`)

/** An ISO time in UTC, or a dash when there is none. */
export const when = (iso) => (iso === null || iso === undefined ? '—' : `${dateTime.format(new Date(iso))} UTC`)
