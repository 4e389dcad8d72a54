import t from 'tap'
import { scanContent } from '../../../workers/scan-content.ts'

function emails(text: string): string[] {
  return scanContent({ text, types: ['EMAIL_ADDRESS'] }).map((f) => text.slice(f.start, f.end))
}

t.test('finds addresses in running text and stops at sentence punctuation', async (t) => {
  t.same(emails('Write to ana.lima+news@mail.example.co.uk, or to ops@example.org.'), ['ana.lima+news@mail.example.co.uk', 'ops@example.org'])
})

t.test('accepts internationalized domains written in punycode', async (t) => {
  t.same(emails('reach me at user@xn--bcher-kva.example today'), ['user@xn--bcher-kva.example'])
})

t.test('finds addresses whose dots and at-sign are spelled out', async (t) => {
  t.same(emails('mail john.doe@example[dot]com'), ['john.doe@example[dot]com'])
  t.same(emails('mail john [at] example (dot) com now'), ['john [at] example (dot) com'])
})

t.test('finds percent-encoded and fullwidth addresses with offsets into the original', async (t) => {
  t.same(emails('link %62%6f%62%40corp.example.net here'), ['%62%6f%62%40corp.example.net'])
  t.same(emails('Contact: ｍｅ＠ｅｘａｍｐｌｅ．ｃｏｍ'), ['ｍｅ＠ｅｘａｍｐｌｅ．ｃｏｍ'])
})

t.test('gives plain addresses a high score and spelled-out ones a lower one', async (t) => {
  const [plain] = scanContent({ text: 'a@example.com', types: ['EMAIL_ADDRESS'] })
  const [spelled] = scanContent({ text: 'a [at] example [dot] com', types: ['EMAIL_ADDRESS'] })
  t.ok((plain?.score ?? 0) > (spelled?.score ?? 1))
})

t.test('ignores look-alikes: no domain, no top-level domain, numeric host, handles', async (t) => {
  t.same(emails('this is not an email: hello-world here'), [])
  t.same(emails('user@localhost and admin@192.168.0.1'), [])
  t.same(emails('ping @someone on chat, or name@ alone'), [])
  t.same(emails('ssh git@2001:db8::1'), [])
})
