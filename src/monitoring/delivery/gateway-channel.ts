// Owns the sms, incidentA and incidentB channels: the JSON each gateway receives, where it goes, and HTTP answers as outcomes.
import { CHANNEL_ERROR_TEXT_LENGTH_MAX, GATEWAY_TIMEOUT_MS, INCIDENT_TEXT_LENGTH_MAX, SMS_BODY_LENGTH_MAX } from '../monitoring-limits.js';
import { AddressGuard } from '../probes/address-guard.js';
import { alertSummary, EVENT_ID_HEADER, shortAlertText, singleLine, truncateText, TXN_ID_HEADER } from './alert-text.js';
import type { Channel, ChannelOutcome, DeliveryJob } from './channel-types.js';
import type { GatewayConfig } from './delivery-config.js';
import { DENIED_BY_OPERATOR, guardedPost } from './guarded-target.js';

/** The notification types delivered through an HTTP gateway. */
export type GatewayType = 'sms' | 'incidentA' | 'incidentB';

/** The server flag that configures each gateway, named when it is missing. */
export const GATEWAY_FLAGS: Readonly<Record<GatewayType, string>> = {
  sms: '--sms-gateway',
  incidentA: '--incident-a-endpoint',
  incidentB: '--incident-b-endpoint',
};

/** The detail each gateway type cannot do without (spec 2.5 makes it required). */
const REQUIRED_DETAIL: Readonly<Record<GatewayType, string>> = { sms: 'phone_number', incidentA: 'service_key', incidentB: 'api_key' };

/** incidentB's routing key when the notification gives none. */
export const INCIDENT_B_DEFAULT_ROUTING_KEY = 'everyone';

/** One gateway request: where, and the JSON body. The URL may hold a secret (incidentB's api_key): never log it. */
export interface GatewayRequest {
  readonly url: string;
  readonly body: Readonly<Record<string, unknown>>;
}

function failure(retryable: boolean, error: string): ChannelOutcome {
  return { ok: false, retryable, error: truncateText(singleLine(error), CHANNEL_ERROR_TEXT_LENGTH_MAX) };
}

/** The entity and alarm an incident is about: `<entityId>:<alarmId>`, so each alarm's incident is opened and resolved as one. */
function incidentKey(job: DeliveryJob): string {
  const summary = alertSummary(job.event);
  return `${summary.entityId}:${summary.alarmId}`;
}

function smsRequest(job: DeliveryJob, base: string): GatewayRequest {
  const summary = alertSummary(job.event);
  return { url: base, body: { to: job.notification.details.phone_number ?? '', body: shortAlertText(summary, SMS_BODY_LENGTH_MAX), event_id: job.event.event_id } };
}

function incidentARequest(job: DeliveryJob, base: string): GatewayRequest {
  const summary = alertSummary(job.event);
  return {
    url: base,
    body: {
      service_key: job.notification.details.service_key ?? '',
      event_type: summary.state === 'OK' ? 'resolve' : 'trigger',
      incident_key: incidentKey(job),
      description: shortAlertText(summary, INCIDENT_TEXT_LENGTH_MAX),
      details: job.event,
    },
  };
}

/** incidentB's message_type for an alarm state: OK recovers, every other state is reported as itself. */
function messageType(state: string): string {
  if (state === 'OK') return 'RECOVERY';
  return state === 'WARNING' ? 'WARNING' : 'CRITICAL';
}

function incidentBRequest(job: DeliveryJob, base: string): GatewayRequest {
  const summary = alertSummary(job.event);
  const apiKey = encodeURIComponent(job.notification.details.api_key ?? '');
  const routingKey = encodeURIComponent(job.notification.details.routing_key || INCIDENT_B_DEFAULT_ROUTING_KEY);
  return {
    url: `${base.replace(/\/+$/, '')}/${apiKey}/${routingKey}`,
    body: {
      message_type: messageType(summary.state),
      entity_id: incidentKey(job),
      entity_display_name: truncateText(singleLine(`${summary.entityLabel}: ${summary.alarmLabel}`), INCIDENT_TEXT_LENGTH_MAX),
      state_message: shortAlertText(summary, INCIDENT_TEXT_LENGTH_MAX),
      timestamp: Math.floor((summary.timestampMs ?? 0) / 1000),
      event_id: job.event.event_id,
    },
  };
}

/** The gateway base URL of a job: incidentA's service_endpoint when set, else the configured one. */
function baseOf(type: GatewayType, job: DeliveryJob, gateways: GatewayConfig): string | undefined {
  if (type === 'incidentA') {
    const endpoint = job.notification.details.service_endpoint;
    if (typeof endpoint === 'string' && endpoint !== '') return endpoint;
  }
  return gateways[type];
}

/** The request a job of `type` makes, or undefined when no gateway is configured for it. */
export function gatewayRequest(type: GatewayType, job: DeliveryJob, gateways: GatewayConfig): GatewayRequest | undefined {
  const base = baseOf(type, job, gateways);
  if (base === undefined || base === '') return undefined;
  if (type === 'sms') return smsRequest(job, base);
  return type === 'incidentA' ? incidentARequest(job, base) : incidentBRequest(job, base);
}

/** A gateway's HTTP status as an outcome: 2xx delivered; 408, 429 and 5xx retryable; anything else permanent. */
export function statusOutcome(type: GatewayType, status: number): ChannelOutcome {
  if (status >= 200 && status < 300) return { ok: true, detail: `${type} gateway answered ${status}` };
  const retryable = status === 408 || status === 429 || status >= 500;
  return failure(retryable, `${type} gateway answered ${status}`);
}

/** A failed request (no HTTP answer) as a retryable outcome; the text names the cause's code, never the URL. */
function networkFailure(type: GatewayType, code: string, signal: AbortSignal, timeout: AbortSignal): ChannelOutcome {
  if (signal.aborted || timeout.aborted) return failure(true, `${type} gateway request timed out`);
  return failure(true, `${type} gateway unreachable (${code})`);
}

/**
 * Sends one request to the address the guard allowed (guarded-target.ts). Redirects are not
 * followed (an answer 3xx is a permanent failure); the answer's body is discarded unread. A denied
 * address is a permanent failure, with nothing sent.
 */
async function post(type: GatewayType, url: URL, request: GatewayRequest, job: DeliveryJob, signal: AbortSignal, guard: AddressGuard): Promise<ChannelOutcome> {
  const timeout = AbortSignal.timeout(GATEWAY_TIMEOUT_MS);
  const answer = await guardedPost({
    url,
    headers: { 'content-type': 'application/json', [TXN_ID_HEADER]: singleLine(job.txnId), [EVENT_ID_HEADER]: singleLine(job.event.event_id) },
    body: JSON.stringify(request.body),
    signal: AbortSignal.any([signal, timeout]),
    guard,
    responseBytesMax: 0,
  });
  if (answer.kind === 'denied') return failure(false, `${type} gateway address is ${DENIED_BY_OPERATOR}`);
  if (answer.kind === 'failed') return networkFailure(type, answer.code, signal, timeout);
  return statusOutcome(type, answer.status);
}

/**
 * The sms, incidentA or incidentB channel: one JSON POST to the gateway (docs/monitoring-api.md,
 * "SMS, incidentA, incidentB gateways"). Without a gateway configured (and, for incidentA, no
 * service_endpoint) every job fails, not retryable, naming the server flag. Secrets (service_key,
 * api_key) travel only in the request: never in an outcome or a log line. Every gateway URL (the
 * configured ones and incidentA's service_endpoint alike) is judged by `guard` (--check-deny)
 * at the address its host resolves to, and the request connects to that address.
 */
export function createGatewayChannel(type: GatewayType, gateways: GatewayConfig, guard: AddressGuard = new AddressGuard()): Channel {
  const deliver = async (job: DeliveryJob, signal: AbortSignal): Promise<ChannelOutcome> => {
    const required = REQUIRED_DETAIL[type];
    if (!job.notification.details[required]) return failure(false, `the notification has no ${required}`);
    const request = gatewayRequest(type, job, gateways);
    if (request === undefined) return failure(false, `no ${type} gateway configured (${GATEWAY_FLAGS[type]})`);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return failure(false, `the ${type} gateway URL is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return failure(false, `the ${type} gateway URL is not http or https`);
    if (signal.aborted) return failure(true, `${type} gateway request timed out`);
    return post(type, url, request, job, signal, guard);
  };
  return { type, deliver };
}
