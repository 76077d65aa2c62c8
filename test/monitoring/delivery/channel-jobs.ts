// Owns the sample alarm events and delivery jobs the channel tests (email, gateway, feed, managed) send.
import type { AlarmEventPayload, DeliveryJob } from '../../../src/monitoring/delivery/channel-types.js';
import type { NotificationTypeId } from '../../../src/monitoring/notification-types.js';

/** 2025-01-02T03:04:05.000Z. */
export const EVENT_TIME_MS = 1_735_787_045_000;

/** Overrides of a sample event. */
export interface EventOptions {
  readonly state?: string;
  readonly previousState?: string | null;
  readonly status?: string;
  readonly entityLabel?: string;
  readonly alarmLabel?: string;
  readonly checkLabel?: string;
  readonly tenant?: string;
}

/** A spec 6.1 event of alarm alHigh on check chHome of entity enWeb1. */
export function sampleEvent(options: EventOptions = {}): AlarmEventPayload {
  const state = options.state ?? 'CRITICAL';
  const tenant = options.tenant ?? 'acme';
  const previous = options.previousState === undefined ? 'OK' : options.previousState;
  return {
    event_id: `${tenant}:enWeb1:alHigh:chHome:${EVENT_TIME_MS}:${state}`,
    log_entry_id: '3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6f',
    details: {
      target: 'www.example.test',
      timestamp: EVENT_TIME_MS,
      metrics: {
        'mzdfw.code': { type: 's', data: '500', unit: 'unknown' },
        'mzdfw.duration': { type: 'I', data: 1234, unit: 'milliseconds' },
      },
      state,
      ...(previous === null ? {} : { previous_state: previous }),
      status: options.status ?? 'HTTP status 500 from www.example.test',
      txn_id: '.rh-eval-123',
      collector_address_v4: '127.0.0.1',
      collector_address_v6: null,
      observations: [
        { monitoring_zone_id: 'mzdfw', state, status: 'HTTP status 500', timestamp: EVENT_TIME_MS, collectorState: 'UP' },
        { monitoring_zone_id: 'mzord', state, status: 'HTTP status 500', timestamp: EVENT_TIME_MS - 1000, collectorState: 'UP' },
      ],
    },
    entity: { id: 'enWeb1', label: options.entityLabel ?? 'web-1', ip_addresses: { default: '127.0.0.1' }, metadata: null, managed: false, uri: null, agent_id: null, created_at: 1, updated_at: 2 },
    check: { id: 'chHome', label: options.checkLabel ?? 'HTTP home', type: 'remote.http', details: { url: 'http://www.example.test/' }, monitoring_zones_poll: ['mzdfw', 'mzord'], timeout: 10, period: 60 },
    alarm: { id: 'alHigh', label: options.alarmLabel ?? 'High latency', check_id: 'chHome', entity_id: 'enWeb1', criteria: 'return new AlarmStatus(CRITICAL);', disabled: false, notification_plan_id: 'npTechnicalContactsEmail' },
    tenant_id: tenant,
  };
}

/** Overrides of a sample job. */
export interface JobOptions {
  readonly details?: Readonly<Record<string, string>>;
  readonly contacts?: readonly string[];
  readonly event?: AlarmEventPayload;
  readonly tenant?: string;
}

/** A first-attempt job of a notification of `type`. */
export function sampleJob(type: NotificationTypeId, options: JobOptions = {}): DeliveryJob {
  const tenant = options.tenant ?? 'acme';
  return {
    outboxId: 'ob-1',
    tenant,
    attempt: 1,
    txnId: '.rh-deliver-42',
    notification: { id: 'ntOne', label: `a ${type} notification`, type, details: options.details ?? {} },
    event: options.event ?? sampleEvent({ tenant }),
    account: { technicalContacts: options.contacts ?? [], webhookToken: 'webhook-token-secret' },
  };
}
