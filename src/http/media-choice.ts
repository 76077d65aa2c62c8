// Owns choosing which of a route's media types to answer with, from the Accept header's preferences.
import { essence } from './content-negotiation.js';

interface AcceptEntry {
  readonly type: string;
  readonly q: number;
}

function parseAccept(accept: string): AcceptEntry[] {
  return accept.split(',').map((part) => {
    const q = /;\s*q=([0-9.]+)/i.exec(part);
    const weight = q?.[1] !== undefined ? Number(q[1]) : 1;
    return { type: essence(part), q: Number.isFinite(weight) ? weight : 0 };
  });
}

/** How well an Accept entry matches a type: 3 exact, 2 type/*, 1 any, 0 not at all (the most specific match counts). */
function specificity(entry: string, type: string): number {
  if (entry === type) return 3;
  if (entry.endsWith('/*') && type.startsWith(entry.slice(0, -1))) return 2;
  return entry === '*/*' ? 1 : 0;
}

/**
 * The type of `offered` the Accept header prefers: the highest q of the most specific matching
 * entry, ties going to the earlier offered type, so `offered[0]` is the default (also when Accept
 * is absent or allows none; the negotiate hook has refused such requests already).
 */
export function preferredType(accept: string | undefined, offered: readonly [string, ...string[]]): string {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const entries = parseAccept(accept);
  let best = offered[0];
  let bestQ = -1;
  for (const type of offered) {
    let match: AcceptEntry | undefined;
    let matchSpecificity = 0;
    for (const entry of entries) {
      const s = specificity(entry.type, type);
      if (s > matchSpecificity) [match, matchSpecificity] = [entry, s];
    }
    if (match !== undefined && match.q > 0 && match.q > bestQ) [best, bestQ] = [type, match.q];
  }
  return best;
}
