import t from 'tap'
import { scanContent } from '../../../workers/scan-content.ts'

function dates(text: string): string[] {
  return scanContent({ text, types: ['DATE_TIME'] }).map((f) => text.slice(f.start, f.end))
}

t.test('finds numeric dates in day-month and month-day order with one kind of separator', async (t) => {
  t.same(dates('on 12/31/1999, 31.12.1999 and 7-4-76'), ['12/31/1999', '31.12.1999', '7-4-76'])
})

t.test('finds ISO 8601 dates with time and offset', async (t) => {
  t.same(dates('at 2023-11-05T08:15:00.250+01:00 sharp'), ['2023-11-05T08:15:00.250+01:00'])
  t.same(dates('stamp 2023-11-05T08:15Z'), ['2023-11-05T08:15Z'])
})

t.test('finds dates with English month names', async (t) => {
  t.same(dates('born March 3, 1987; moved 14 Feb 2001; left in Sept-2019'), ['March 3, 1987', '14 Feb 2001', 'Sept-2019'])
})

t.test('scores a date next to birth context above a date alone', async (t) => {
  const [alone] = scanContent({ text: 'meeting 03/04/1987', types: ['DATE_TIME'] })
  const [birth] = scanContent({ text: 'date of birth 03/04/1987', types: ['DATE_TIME'] })
  t.ok((birth?.score ?? 0) > (alone?.score ?? 1))
  t.ok((birth?.score ?? 0) >= 0.9)
})

t.test('gives month/year and month/day only a weak score', async (t) => {
  const findings = scanContent({ text: 'from 11/2027 to 5/21', types: ['DATE_TIME'] })
  t.equal(findings.length, 2)
  for (const finding of findings) t.ok(finding.score < 0.5)
})

t.test('rejects impossible days and months and digits glued to words', async (t) => {
  t.same(dates('on 2023-02-30, 13/13/2020, 2021-13-01'), [])
  t.same(dates('Today is5/21 and v1.2.3'), [])
})
