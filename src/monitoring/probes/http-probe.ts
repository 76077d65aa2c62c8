// Owns the remote.http probe: one timed HTTP(S) request to the check's target, its redirects, and the metrics and status of spec 2.3.
import { performance } from 'node:perf_hooks';
import type { ResultMetric } from '../check-result.js';
import { HTTP_CHECK_BODY_BYTES_MAX, HTTP_CHECK_REDIRECTS_MAX } from '../monitoring-limits.js';
import { bodyMatchMetrics } from './http-body-match.js';
import { bareHostname, httpExchange, type ExchangeResponse } from './http-exchange.js';
import { firstHop, followsRedirect, hopHeaders, httpSettings, redirectHop, type Hop, type HttpSettings } from './http-request-plan.js';
import { resolveHostAddress } from './probe-target.js';
import type { Probe, ProbeContext, ProbeOutcome } from './probe-types.js';

/** How far below the timeout a run aborted through the context's signal still counts as timed out (timers fire late, never early). */
const TIMEOUT_SLACK_MS = 50;

/** A uint32 milliseconds metric. */
function ms(value: number): ResultMetric {
  return { type: 'I', data: Math.max(0, Math.round(value)), unit: 'milliseconds' };
}

/** The run's deadline: aborts at ctx.timeoutMs or with ctx.signal, whichever is first; dispose clears its timer and listener. */
interface RunDeadline {
  readonly signal: AbortSignal;
  /** The status of a run this deadline stopped. */
  stoppedStatus(elapsedMs: number): string;
  dispose(): void;
}

function runDeadline(ctx: ProbeContext): RunDeadline {
  const controller = new AbortController();
  let ownTimeout = false;
  const onAbort = (): void => controller.abort(ctx.signal.reason);
  const timer = setTimeout(() => {
    ownTimeout = true;
    controller.abort(new DOMException('check timeout', 'TimeoutError'));
  }, ctx.timeoutMs);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) onAbort();
  return {
    signal: controller.signal,
    stoppedStatus(elapsedMs) {
      const reason: unknown = ctx.signal.reason;
      const timedOut = ownTimeout || elapsedMs >= ctx.timeoutMs - TIMEOUT_SLACK_MS || (reason instanceof DOMException && reason.name === 'TimeoutError');
      return timedOut ? `timeout after ${ctx.timeoutMs} ms` : 'cancelled';
    },
    dispose() {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    },
  };
}

/** An unavailable outcome with the metrics known so far. */
function unavailable(status: string, metrics: Record<string, ResultMetric>): ProbeOutcome {
  return { available: false, status, metrics };
}

/** The metrics every response gives: code, timings and body size. */
function responseMetrics(response: ExchangeResponse, durationMs: number): Record<string, ResultMetric> {
  return {
    bytes: { type: 'i', data: response.body.length, unit: 'bytes' },
    code: { type: 's', data: String(response.statusCode), unit: 'unknown' },
    duration: ms(durationMs),
    truncated: { type: 'I', data: response.truncatedBytes, unit: 'bytes' },
    tt_connect: ms(response.connectMs),
    tt_firstbyte: ms(response.firstByteMs),
  };
}

/** The outcome of the final response: available, with body matches and (include_body) the body. */
function answered(ctx: ProbeContext, settings: HttpSettings, response: ExchangeResponse, durationMs: number): ProbeOutcome {
  const metrics = { ...responseMetrics(response, durationMs), ...bodyMatchMetrics(ctx.check.details, response.body) };
  const status = `code=${response.statusCode},rt=${(durationMs / 1000).toFixed(3)}s,bytes=${response.body.length}`;
  return settings.includeBody ? { available: true, status, metrics, body: response.body.toString('utf8') } : { available: true, status, metrics };
}

/** Where the next hop connects: the same address on the same host, else its host resolved anew (target_resolver applies). */
async function nextAddress(ctx: ProbeContext, from: Hop, to: Hop, address: string, deadline: RunDeadline): Promise<{ address: string } | { error: string }> {
  if (bareHostname(to.url).toLowerCase() === bareHostname(from.url).toLowerCase()) return { address };
  return resolveHostAddress(bareHostname(to.url), ctx.check.target_resolver, { signal: deadline.signal, timeoutMs: ctx.timeoutMs });
}

/**
 * Runs the request hop by hop: each hop's address must pass the guard, each response either ends
 * the run or (a followed redirect) leads to the next hop, at most HTTP_CHECK_REDIRECTS_MAX times.
 */
async function run(ctx: ProbeContext, settings: HttpSettings, deadline: RunDeadline): Promise<ProbeOutcome> {
  const startMs = performance.now();
  const elapsedMs = (): number => performance.now() - startMs;
  let hop = firstHop(settings);
  let address = ctx.target.address;
  // The metrics of the last redirect followed, kept when a later hop cannot be made.
  let known: Record<string, ResultMetric> = {};
  for (let redirects = 0; ; redirects += 1) {
    if (!ctx.guard.allows(address)) return unavailable(`address ${address} is denied by the operator (--check-deny)`, { ...known, duration: ms(elapsedMs()) });
    const result = await httpExchange({
      url: hop.url,
      address,
      method: hop.method,
      headers: hopHeaders(settings, hop),
      payload: hop.payload,
      bodyBytesMax: HTTP_CHECK_BODY_BYTES_MAX,
      wantsBody: (statusCode) => !followsRedirect(settings, statusCode),
      signal: deadline.signal,
      elapsedMs,
    });
    const durationMs = elapsedMs();
    if (!result.ok) {
      const metrics: Record<string, ResultMetric> = { duration: ms(durationMs) };
      if (result.connectMs !== null) metrics['tt_connect'] = ms(result.connectMs);
      return unavailable(result.aborted ? deadline.stoppedStatus(durationMs) : result.reason, metrics);
    }
    if (result.bodyFailure !== null) {
      const why = result.aborted ? deadline.stoppedStatus(durationMs) : result.bodyFailure;
      return unavailable(`${why} while reading the body (code=${result.statusCode})`, responseMetrics(result, durationMs));
    }
    if (!followsRedirect(settings, result.statusCode)) return answered(ctx, settings, result, durationMs);
    const metrics = responseMetrics(result, durationMs);
    if (redirects === HTTP_CHECK_REDIRECTS_MAX) return unavailable(`too many redirects (more than ${HTTP_CHECK_REDIRECTS_MAX})`, metrics);
    const next = redirectHop(settings, hop, result.statusCode, result.location);
    if (next === null) return unavailable(`redirect (code=${result.statusCode}) without an http or https Location`, metrics);
    const resolved = await nextAddress(ctx, hop, next, address, deadline);
    if (deadline.signal.aborted) return unavailable(deadline.stoppedStatus(elapsedMs()), { ...metrics, duration: ms(elapsedMs()) });
    if ('error' in resolved) return unavailable(resolved.error, { ...metrics, duration: ms(elapsedMs()) });
    known = metrics;
    hop = next;
    address = resolved.address;
  }
}

/**
 * The remote.http probe. It connects to the target's address (the URL gives scheme, port, path,
 * query, the Host header, and TLS's server name and certificate check), sends the check's method,
 * headers, basic authentication and payload, follows redirects when asked, and reads at most
 * HTTP_CHECK_BODY_BYTES_MAX body bytes. Available means a final HTTP response was received and
 * read, whatever its status code. Timings run from the start of the run: tt_connect and
 * tt_firstbyte are those of the final hop, duration ends with the body. The run settles within
 * ctx.timeoutMs and leaves no socket or timer behind.
 */
export const httpProbe: Probe = async (ctx) => {
  const settings = httpSettings(ctx.check.details);
  if ('error' in settings) return unavailable(settings.error, {});
  const deadline = runDeadline(ctx);
  try {
    return await run(ctx, settings, deadline);
  } finally {
    deadline.dispose();
  }
};
