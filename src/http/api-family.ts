// Owns which API family a URL belongs to; each family has one error-body shape its clients expect.

/**
 * An API family: identity (fault-wrapped bodies), ingest (Blueflood errors list), feeds (Atom
 * server errors), dns (DNS faults) or metrics (the monitoring shape, also for operations).
 */
export type ApiFamily = 'identity' | 'ingest' | 'feeds' | 'dns' | 'metrics';

function under(url: string, root: string): boolean {
  return url === root || url.startsWith(`${root}/`) || url.startsWith(`${root}?`);
}

/** The family of a request URL. */
export function familyOf(url: string): ApiFamily {
  if (under(url, '/v2.0')) return 'identity';
  if (url.startsWith('/ingest/')) return 'ingest';
  if (under(url, '/feeds')) return 'feeds';
  if (under(url, '/dns')) return 'dns';
  return 'metrics';
}
