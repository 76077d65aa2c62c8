// Owns polling in the integration tests: waiting for a condition of a real server, agent or receiver to hold.

/** How long `until` polls unless told otherwise: a bound on a broken test, never on a passing one. */
export const UNTIL_TIMEOUT_MS = 15_000;
/** How long `until` sleeps between probes unless told otherwise. */
export const UNTIL_POLL_MS = 25;

/**
 * Polls `probe` until it yields a value other than undefined or false, and returns that value;
 * after `timeoutMs` throws naming `what` (a function is asked at that moment, so it may show logs).
 */
export async function until<T>(what: string | (() => string), probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = UNTIL_TIMEOUT_MS, pollMs = UNTIL_POLL_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
