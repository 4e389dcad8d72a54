// The compliance records endpoints with the records in LMDB (the suite: records-routes.ts).
import t from 'tap'
import { recordsRoutesSuite } from './records-routes.ts'

recordsRoutesSuite(t, async () => ({}))
