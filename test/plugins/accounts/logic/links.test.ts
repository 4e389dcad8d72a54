import t from 'tap'
import { linkBase } from '../../../../plugins/accounts/logic/links.ts'

t.test('publicUrl wins, without its trailing slash', async (t) => {
  t.equal(linkBase('https://auth.example.com/', { host: 'evil.example' }), 'https://auth.example.com')
})

t.test('without publicUrl, only a Host naming this machine is trusted for links', async (t) => {
  t.equal(linkBase(undefined, { host: '127.0.0.1:8080' }), 'http://127.0.0.1:8080')
  t.equal(linkBase(undefined, { host: 'localhost:3000' }), 'http://localhost:3000')
  t.equal(linkBase(undefined, { host: '[::1]:8080' }), 'http://[::1]:8080')
  t.equal(linkBase(undefined, { host: 'evil.example' }), undefined)
  t.equal(linkBase(undefined, { host: '127.0.0.1.evil.example' }), undefined)
  t.equal(linkBase(undefined, { host: 'localhost@evil.example' }), undefined)
  t.equal(linkBase(undefined, {}), undefined)
})
