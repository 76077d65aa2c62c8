// Owns the notification delivery configuration: retries, timeouts, concurrency, the vendor prefix, SMTP and gateways; its defaults and checks.
import { configError } from '../../core/config-error.js';
import {
  DELIVERY_ATTEMPT_TIMEOUT_MS_DEFAULT,
  DELIVERY_ATTEMPT_TIMEOUT_MS_MAX,
  DELIVERY_ATTEMPTS_CEILING,
  DELIVERY_ATTEMPTS_DEFAULT,
  DELIVERY_CONCURRENCY_DEFAULT,
  DELIVERY_CONCURRENCY_MAX,
  DELIVERY_RETRY_BASE_MS_DEFAULT,
  DELIVERY_RETRY_MAX_MS_CEILING,
  DELIVERY_RETRY_MAX_MS_DEFAULT,
} from '../monitoring-limits.js';

/** The SMTP relay email notifications go through. */
export interface SmtpConfig {
  readonly host: string;
  readonly port: number;
  /** True for implicit TLS (port 465 style); false lets the relay offer STARTTLS. */
  readonly secure: boolean;
  /** The From address of every notification email. */
  readonly from: string;
}

/** URLs of the HTTP gateways sms, incidentA and incidentB notifications are posted to (undefined: that type cannot be delivered). */
export interface GatewayConfig {
  readonly sms: string | undefined;
  readonly incidentA: string | undefined;
  readonly incidentB: string | undefined;
}

/** How deliveries are attempted. */
export interface DeliveryConfig {
  /** Attempts a delivery gets (counted from its enqueue or its last manual retry) before it is a dead letter. */
  readonly attemptsMax: number;
  /** Delay before the second attempt; each further failure doubles it (with jitter). */
  readonly retryBaseMs: number;
  /** Cap of the retry delay. */
  readonly retryMaxMs: number;
  /** Time one attempt may take before its signal aborts it. */
  readonly attemptTimeoutMs: number;
  /** Attempts running at once. */
  readonly concurrency: number;
  /** Vendor prefix of the webhook token header: `x-<vendorPrefix lower-cased>-webhook-token` (spec 5.4). */
  readonly vendorPrefix: string;
  /** The SMTP relay; undefined: email notifications fail (not retried) until one is configured. */
  readonly smtp: SmtpConfig | undefined;
  readonly gateways: GatewayConfig;
}

/** Where delivery writes its log lines: a pino Logger fits. Never given secrets. */
export interface DeliveryLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Defaults of every field: 10 attempts, 1 s doubling to 5 min, 10 s per attempt, 16 at once, `RAX`, no SMTP relay or gateways. */
export const DEFAULT_DELIVERY_CONFIG: DeliveryConfig = {
  attemptsMax: DELIVERY_ATTEMPTS_DEFAULT,
  retryBaseMs: DELIVERY_RETRY_BASE_MS_DEFAULT,
  retryMaxMs: DELIVERY_RETRY_MAX_MS_DEFAULT,
  attemptTimeoutMs: DELIVERY_ATTEMPT_TIMEOUT_MS_DEFAULT,
  concurrency: DELIVERY_CONCURRENCY_DEFAULT,
  vendorPrefix: 'RAX',
  smtp: undefined,
  gateways: { sms: undefined, incidentA: undefined, incidentB: undefined },
};

/** Input of resolveDeliveryConfig: any subset of the fields. */
export type DeliveryConfigInput = Partial<DeliveryConfig>;

const VENDOR_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,15}$/;

function integerIn(option: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw configError(`delivery.${option}`, `an integer from ${min} to ${max}`, value);
}

function checkUrl(option: string, value: string | undefined): void {
  if (value === undefined) return;
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {
    // Reported below with the accepted form.
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw configError(`delivery.${option}`, 'an http or https URL', value);
}

function checkSmtp(smtp: SmtpConfig | undefined): void {
  if (smtp === undefined) return;
  if (smtp.host === '') throw configError('delivery.smtp.host', 'a host name or address', smtp.host);
  integerIn('smtp.port', smtp.port, 1, 65_535);
  if (!/^[^\s@]+@[^\s@]+$/.test(smtp.from)) throw configError('delivery.smtp.from', 'an email address', smtp.from);
}

/** The configuration of `input` over the defaults; throws CONFIG_INVALID naming the first field outside what it accepts. */
export function resolveDeliveryConfig(input: DeliveryConfigInput = {}): DeliveryConfig {
  // A field given as undefined (an unset CLI flag) keeps its default; smtp alone may be undefined on purpose.
  const given = Object.fromEntries(Object.entries(input).filter(([key, value]) => value !== undefined || key === 'smtp')) as DeliveryConfigInput;
  const config: DeliveryConfig = { ...DEFAULT_DELIVERY_CONFIG, ...given, gateways: { ...DEFAULT_DELIVERY_CONFIG.gateways, ...given.gateways } };
  integerIn('attemptsMax', config.attemptsMax, 1, DELIVERY_ATTEMPTS_CEILING);
  integerIn('retryMaxMs', config.retryMaxMs, 1, DELIVERY_RETRY_MAX_MS_CEILING);
  integerIn('retryBaseMs', config.retryBaseMs, 1, config.retryMaxMs);
  integerIn('attemptTimeoutMs', config.attemptTimeoutMs, 1, DELIVERY_ATTEMPT_TIMEOUT_MS_MAX);
  integerIn('concurrency', config.concurrency, 1, DELIVERY_CONCURRENCY_MAX);
  if (!VENDOR_PATTERN.test(config.vendorPrefix)) throw configError('delivery.vendorPrefix', 'a letter then up to 15 letters or digits', config.vendorPrefix);
  checkSmtp(config.smtp);
  checkUrl('gateways.sms', config.gateways.sms);
  checkUrl('gateways.incidentA', config.gateways.incidentA);
  checkUrl('gateways.incidentB', config.gateways.incidentB);
  return config;
}
