// Owns the end-to-end tests' reads of Strata's own query API (search, FULL-resolution points) and their polling.

/** Pause between two polls of a condition. */
const POLL_MS = 250;

/** Metric names of a tenant matching a glob, through `GET /metrics/v2.0/{tenant}/metrics/search`. */
export async function searchMetrics(url: string, tenant: string, token: string, glob: string): Promise<string[]> {
  const response = await fetch(`${url}/metrics/v2.0/${tenant}/metrics/search?query=${encodeURIComponent(glob)}`, { headers: { 'x-auth-token': token } });
  if (response.status !== 200) throw new Error(`search ${glob} in ${tenant}: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { metric: string }[];
  return body.map((entry) => entry.metric);
}

/** One stored point as [timestamp ms, value]. */
export type StoredPoint = [number, number];

/** Every FULL-resolution point of a metric in `[fromMs, toMs)`, through the views route. */
export async function storedPoints(url: string, tenant: string, token: string, name: string, fromMs: number, toMs: number): Promise<StoredPoint[]> {
  const query = `from=${fromMs}&to=${toMs}&resolution=FULL`;
  const response = await fetch(`${url}/metrics/v2.0/${tenant}/views/${encodeURIComponent(name)}?${query}`, { headers: { 'x-auth-token': token } });
  if (response.status !== 200) throw new Error(`view ${name} in ${tenant}: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { values: { timestamp: number; average: number }[] };
  return body.values.map((v) => [v.timestamp, v.average]);
}

/**
 * Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs` with
 * `describe()` (which should say what was last seen, so a failure explains itself).
 */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, describe: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`gave up after ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
