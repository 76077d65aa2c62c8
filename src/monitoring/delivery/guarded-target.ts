// Owns every outbound delivery HTTP request: the target host resolved, judged by the operator's AddressGuard (--check-deny), and the connection pinned to the judged address.
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressGuard } from '../probes/address-guard.js';
import { resolveHostAddress } from '../probes/probe-target.js';

/** The words of a refused target, after what was refused ("webhook target address is ..."). */
export const DENIED_BY_OPERATOR = 'denied by the operator (--check-deny)';

/** One POST to a delivery target. */
export interface GuardedPost {
  /** An http or https URL; it may hold a secret, so it is never in an answer. */
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Aborts the resolution and the request (the attempt's timeout). */
  readonly signal: AbortSignal;
  readonly guard: AddressGuard;
  /** Most bytes of the answer read, and discarded, before the connection is closed; 0 reads none. */
  readonly responseBytesMax: number;
}

/**
 * What a guarded POST did: the receiver answered with a status; the address the host resolves to is
 * denied (nothing was sent); or it failed without an answer, with an error code (ENOTFOUND,
 * ECONNREFUSED...; the caller tells a timeout by its signal). Never the URL.
 */
export type GuardedAnswer =
  | { readonly kind: 'answered'; readonly status: number }
  | { readonly kind: 'denied' }
  | { readonly kind: 'failed'; readonly code: string };

/** The code of an error (ECONNREFUSED, ERR_TLS_CERT_ALTNAME_INVALID...), or `network error`; never its message. */
function codeOf(error: unknown): string {
  const own = (error as { code?: unknown } | null)?.code;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  const code = typeof own === 'string' ? own : cause;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'network error';
}

/** A lookup that answers every name with `address`: the connection goes where the guard looked, whatever DNS says next. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/**
 * The address to connect to for `url`: an IP literal as is, else the system resolver's answer
 * (IPv4 preferred, as check probes resolve), or the lookup's failure code.
 */
async function targetAddress(url: URL, signal: AbortSignal): Promise<{ address: string } | { code: string }> {
  const resolved = await resolveHostAddress(url.hostname, null, { signal });
  if ('address' in resolved) return { address: resolved.address };
  // The error text names the host; keep only its code.
  return { code: /: ([A-Z0-9_]{1,40})$/.exec(resolved.error)?.[1] ?? 'EUNKNOWN' };
}

/** Reads at most `max` bytes of the answer (0: none), then closes it; settles once the body ended, failed or was cut. */
function drain(response: IncomingMessage, max: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (max <= 0) {
      response.destroy();
      resolve();
      return;
    }
    let bytes = 0;
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (bytes > max) {
        response.destroy();
        resolve();
      }
    });
    response.once('end', () => resolve());
    response.once('close', () => resolve());
    response.once('error', () => resolve());
  });
}

/**
 * POSTs `body` to `url` when the guard allows the address its host resolves to, connecting to that
 * very address (no second lookup a DNS rebinding could answer differently); the Host header and the
 * TLS server name stay the URL's. Redirects are not followed. Never throws.
 */
export async function guardedPost(post: GuardedPost): Promise<GuardedAnswer> {
  const target = await targetAddress(post.url, post.signal);
  if ('code' in target) return { kind: 'failed', code: target.code };
  if (!post.guard.allows(target.address)) return { kind: 'denied' };
  if (post.signal.aborted) return { kind: 'failed', code: 'ABORT_ERR' };
  const send = post.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<GuardedAnswer>((resolve) => {
    let settled = false;
    // Once the status is in, it decides: a body cut short (by the bound, the signal or the peer) changes nothing.
    let status: number | undefined;
    const settle = (answer: GuardedAnswer): void => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    try {
      const request = send(
        post.url,
        {
          method: 'POST',
          headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
          lookup: pinnedLookup(target.address),
          // A fresh connection per request: a pooled socket is never reused for another pinned address.
          agent: false,
          signal: post.signal,
        },
        (response) => {
          const answered = response.statusCode ?? 0;
          status = answered;
          void drain(response, post.responseBytesMax).then(() => settle({ kind: 'answered', status: answered }));
        },
      );
      request.on('error', (error) => settle(status === undefined ? { kind: 'failed', code: codeOf(error) } : { kind: 'answered', status }));
      request.end(post.body);
    } catch (error) {
      settle({ kind: 'failed', code: codeOf(error) });
    }
  });
}
