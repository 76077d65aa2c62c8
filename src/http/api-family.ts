// Owns which API family a URL belongs to; each family has one error-body shape its clients expect.

/** An API family: identity (fault-wrapped bodies), ingest (Blueflood errors list) or metrics (monitoring shape). */
export type ApiFamily = 'identity' | 'ingest' | 'metrics';

/** The family of a request URL; monitoring, DNS, feeds and operations use the metrics shape until they define theirs. */
export function familyOf(url: string): ApiFamily {
  if (url.startsWith('/v2.0/') || url === '/v2.0' || url.startsWith('/v2.0?')) return 'identity';
  if (url.startsWith('/ingest/')) return 'ingest';
  return 'metrics';
}
