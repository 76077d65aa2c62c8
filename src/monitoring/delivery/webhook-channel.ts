// Owns the webhook channel: the spec 6.1 JSON POST with the account's webhook token header (spec 5.4), and HTTP answers as outcomes.
import { WEBHOOK_RESPONSE_BYTES_MAX } from '../monitoring-limits.js';
import { AddressGuard } from '../probes/address-guard.js';
import { EVENT_ID_HEADER, TXN_ID_HEADER } from './alert-text.js';
import type { Channel, ChannelOutcome, DeliveryJob } from './channel-types.js';
import { boundedText } from './delivery-attempt.js';
import { DENIED_BY_OPERATOR, guardedPost } from './guarded-target.js';

/** The token header of a vendor prefix: `x-<prefix lower-cased>-webhook-token` (`x-rax-webhook-token` for RAX). */
export function webhookTokenHeader(vendorPrefix: string): string {
  return `x-${vendorPrefix.toLowerCase()}-webhook-token`;
}

/** User-Agent of webhook deliveries. */
const USER_AGENT = 'Strata-Monitoring-Webhook';

/** A receiver's HTTP status as an outcome: 2xx delivered; 408, 429 and 5xx retried; 3xx (redirects are not followed) and other 4xx dead. */
export function webhookStatusOutcome(status: number): ChannelOutcome {
  if (status >= 200 && status < 300) return { ok: true, detail: `webhook answered ${status}` };
  const retryable = status === 408 || status === 429 || status >= 500;
  const note = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  return { ok: false, retryable, error: `webhook answered ${status}${note}` };
}

/** A request that got no answer: timed out (the attempt's signal) or the network's error code; never the URL (it may hold a secret). */
function networkOutcome(code: string, signal: AbortSignal): ChannelOutcome {
  if (signal.aborted) return { ok: false, retryable: true, error: 'webhook request timed out' };
  return { ok: false, retryable: true, error: boundedText(`webhook unreachable (${code})`) };
}

/** The target URL of a job, when it is an http or https URL. */
function targetOf(job: DeliveryJob): URL | undefined {
  try {
    const url = new URL(job.notification.details['url'] ?? '');
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The webhook channel: POSTs the event as JSON to the notification's `url` with
 * `Content-Type: application/json`, the account's webhook token in `x-<vendor>-webhook-token`,
 * the attempt's transaction id and the event id. Redirects are not followed; the answer's body
 * is read (bounded) and discarded. The URL and token are never in an outcome. The URL's host is
 * resolved and judged by `guard` (the operator's --check-deny), and the request connects to the
 * address judged: a denied address fails the job, not retryable, with nothing sent.
 */
export function createWebhookChannel(vendorPrefix: string, guard: AddressGuard = new AddressGuard()): Channel {
  const tokenHeader = webhookTokenHeader(vendorPrefix);
  const deliver = async (job: DeliveryJob, signal: AbortSignal): Promise<ChannelOutcome> => {
    const url = targetOf(job);
    if (url === undefined) return { ok: false, retryable: false, error: 'the notification has no http or https url' };
    if (signal.aborted) return { ok: false, retryable: true, error: 'webhook request timed out' };
    const answer = await guardedPost({
      url,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        // A test to an unsaved target carries no token (test-notification.ts): the header is left out.
        ...(job.account.webhookToken === '' ? {} : { [tokenHeader]: job.account.webhookToken }),
        [TXN_ID_HEADER]: job.txnId,
        [EVENT_ID_HEADER]: job.event.event_id,
      },
      body: JSON.stringify(job.event),
      signal,
      guard,
      responseBytesMax: WEBHOOK_RESPONSE_BYTES_MAX,
    });
    if (answer.kind === 'denied') return { ok: false, retryable: false, error: `webhook target address is ${DENIED_BY_OPERATOR}` };
    if (answer.kind === 'failed') return networkOutcome(answer.code, signal);
    return webhookStatusOutcome(answer.status);
  };
  return { type: 'webhook', deliver };
}
