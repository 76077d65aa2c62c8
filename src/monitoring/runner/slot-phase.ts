// Owns when a (check, zone) slot runs: a stable phase inside its period from a hash of its key, aligned to the epoch.

/** FNV-1a offset basis and prime (32 bits). */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The key of one slot: tenant, entity, check and zone (ids hold no '/'). */
export function slotKey(tenant: string, entityId: string, checkId: string, zoneId: string): string {
  return `${tenant}/${entityId}/${checkId}/${zoneId}`;
}

/** 32-bit FNV-1a of a string's UTF-16 code units: cheap, stable across processes and releases. */
export function hash32(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * The slot's offset inside its period, in ms: a hash of its key, so 10,000 checks of one period
 * spread over the whole period instead of firing together, and a restart keeps every phase.
 */
export function slotPhaseMs(key: string, periodMs: number): number {
  return hash32(key) % periodMs;
}

/** The first time at or after `nowMs` that is `phaseMs` past a multiple of `periodMs` since the epoch. */
export function dueAtOrAfter(nowMs: number, periodMs: number, phaseMs: number): number {
  const into = (((nowMs - phaseMs) % periodMs) + periodMs) % periodMs;
  return into === 0 ? nowMs : nowMs + periodMs - into;
}
