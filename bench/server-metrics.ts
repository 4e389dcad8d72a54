// Figures read from a gateway's own Prometheus endpoint: the Governor's scans by place, the LMDB
// commits, and the event-loop lag. prom-client's event-loop figures come from a histogram it
// resets on every scrape, so a scrape just before a run starts a fresh window and the next one
// reports that window.
import { send } from './probe.ts'

async function scrape(serverUrl: string): Promise<string> {
  const answer = await send({ url: `${serverUrl}/metrics`, method: 'GET', headers: {} })
  if (answer.status !== 200) throw new Error(`GET ${serverUrl}/metrics answered ${answer.status}`)
  return answer.body
}

/** A sample's value; 0 when the series has no sample yet (a labelled counter before its first use). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

export async function governorScans(serverUrl: string): Promise<{ inline: number; pool: number }> {
  const text = await scrape(serverUrl)
  return {
    inline: sample(text, 'tollgate_governor_scan_seconds_count{where="inline"}'),
    pool: sample(text, 'tollgate_governor_scan_seconds_count{where="pool"}'),
  }
}

/** Write transactions the server has committed to LMDB (a cluster's /metrics sums its workers). */
export async function lmdbCommits(serverUrl: string): Promise<number> {
  return sample(await scrape(serverUrl), 'tollgate_store_commits_total{store="lmdb"}')
}

/** Starts a new event-loop lag window. */
export async function resetEventLoopLag(serverUrl: string): Promise<void> {
  await scrape(serverUrl)
}

/** p99 event-loop lag since the previous scrape, in milliseconds. */
export async function eventLoopLagP99Ms(serverUrl: string): Promise<number> {
  return sample(await scrape(serverUrl), 'nodejs_eventloop_lag_p99_seconds') * 1000
}
