// Calendar checks for identifiers that embed a birth date.

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  const days = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] as number)
  return day <= days
}

/** Two-digit year: valid when the date exists in either the 1900s or the 2000s. */
export function isDateInEitherCentury(yy: number, month: number, day: number): boolean {
  return isCalendarDate(1900 + yy, month, day) || isCalendarDate(2000 + yy, month, day)
}
