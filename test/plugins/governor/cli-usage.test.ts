// `tollgate governor …` refuses what it cannot do with exit code 2 and a message saying why.
import t from 'tap'
import { freshDataDir } from '../../helpers/start-gateway.ts'
import { tollgate } from './fixtures.ts'

t.test('governor command mistakes exit with 2 and say what is wrong', async (t) => {
  const dataDir = freshDataDir(t)
  const noProject = await tollgate(dataDir, 'governor', 'settings')
  t.match(noProject, { code: 2, stderr: /--project is required/ })
  const badFlag = await tollgate(dataDir, 'governor', 'settings', '--project', 'proj_x', '--strict', 'maybe')
  t.match(badFlag, { code: 2, stderr: /--strict must be on or off/ })
  const badThreshold = await tollgate(dataDir, 'governor', 'settings', '--project', 'proj_x', '--auto-approve', '101')
  t.match(badThreshold, { code: 2, stderr: /--auto-approve must be a whole number from 0 to 100/ })
  const unknown = await tollgate(dataDir, 'governor', 'settings', '--project', 'proj_missing', '--strict', 'on')
  t.match(unknown, { code: 2, stderr: /no project with id proj_missing/ })
  const unknownOption = await tollgate(dataDir, 'governor', 'rules', 'list', '--project', 'p', '--colour', 'red')
  t.equal(unknownOption.code, 2)
  const help = await tollgate(dataDir, '--help')
  t.match(help.stdout, /governor settings --project ID/)
  t.match(help.stdout, /audit verify --project ID/)
})
