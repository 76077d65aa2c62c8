import { appendFileSync } from 'node:fs';
// Owns sending one fuzzed request in process and checking it: the answer's invariants, the prototypes, and that a refused write changed nothing.
import type { LightMyRequestResponse } from 'fastify';
import { FUZZ_LOG } from './fuzz-config.js';
import type { FuzzWorld } from './fuzz-world.js';
import { checkPrototypes, checkResponse, describeExchange, type FuzzRequest } from './response-invariants.js';

/** How long one in-process request may take before the suite calls it a freeze. */
const ANSWER_TIME_MS = 10_000;

/** Methods that change state when they succeed: a refused one must leave the stored state as it was. */
const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

async function send(world: FuzzWorld, request: FuzzRequest): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_TIME_MS} ms${describeExchange(request, undefined)}`)), ANSWER_TIME_MS);
  });
  try {
    const answer = world.app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: request.headers as Record<string, string>,
      ...(request.body !== undefined ? { payload: request.body } : {}),
    });
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The lines of two fingerprints that differ, for the failure message. */
function changedLines(before: string, after: string): string {
  const was = before.split('\n');
  const now = after.split('\n');
  const lines: string[] = [];
  for (let i = 0; i < Math.max(was.length, now.length); i++) {
    if (was[i] !== now[i]) lines.push(`\n  before: ${String(was[i]).slice(0, 300)}\n  after:  ${String(now[i]).slice(0, 300)}`);
  }
  return lines.join('');
}

/** One line per answer for the coverage log: status, Strata code, method and path. */
function logLine(request: FuzzRequest, res: LightMyRequestResponse): string {
  const code = /"code":"([A-Z_]+)"|<details>([A-Z_]+)<|"details":"([A-Z_]+)"/.exec(res.body)?.slice(1).join('') ?? '';
  const path = (request.url.split('?')[0] ?? '').replace(/\s/g, ' ').slice(0, 100);
  return `${res.statusCode} ${code || '-'} ${request.method} ${path}\n`;
}

/**
 * Sends `request` and asserts every invariant: no 5xx (a 503 only with Retry-After), the
 * transaction id, the API's error body, no polluted prototype; a refused POST, PUT, PATCH or
 * DELETE leaves the stored state exactly as it was. A write that succeeded may have deleted a
 * seeded object or revoked a token: they are recreated for the next request.
 */
export async function exercise(world: FuzzWorld, request: FuzzRequest): Promise<LightMyRequestResponse> {
  let before: string | undefined;
  if (WRITES.has(request.method)) {
    // A tick per write: any change it makes shows in the update times the fingerprint compares.
    world.clock.advance(1);
    before = await world.fingerprint();
  }
  let res: LightMyRequestResponse | undefined;
  try {
    res = await send(world, request);
    if (FUZZ_LOG !== undefined) appendFileSync(FUZZ_LOG, logLine(request, res));
    checkResponse(request, res);
  } finally {
    checkPrototypes(request, res);
  }
  if (before !== undefined) {
    if (res.statusCode >= 400) {
      const after = await world.fingerprint();
      if (after !== before) throw new Error(`a refused request changed the stored state${describeExchange(request, res)}${changedLines(before, after)}`);
    } else {
      world.refreshTokens();
      world.ensureSeeds();
    }
  }
  return res;
}
