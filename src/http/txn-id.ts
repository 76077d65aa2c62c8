// Owns transaction ids: one per request, sent as X-Response-Id and quoted in error bodies and logs.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';

/** Header carrying the transaction id on every response (as the reference monitoring API). */
export const TXN_ID_HEADER = 'x-response-id';

/**
 * A generator of transaction ids shaped like the reference's (`.r-<instance>.c-<n>.ts-<ms>`): a
 * random per-server part, a counter and the time, so ids are unique without a random draw per request.
 */
export function txnIdGenerator(clock: Clock): () => string {
  const instance = randomBytes(6).toString('base64url');
  let counter = 0;
  return () => {
    counter += 1;
    return `.r-${instance}.c-${counter}.ts-${clock.now()}.v-strata`;
  };
}
