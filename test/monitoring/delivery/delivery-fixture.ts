// Owns the delivery test fixture: a monitoring file with a webhook notification and a real alarm event, a deliverer over it, and a logger that keeps its lines.
import { systemClock } from '../../../src/core/clock.js';
import { StrataError } from '../../../src/core/errors.js';
import { buildAlarmEvent } from '../../../src/monitoring/delivery/alarm-event.js';
import type { AlarmEventPayload, Channel } from '../../../src/monitoring/delivery/channel-types.js';
import { Deliverer, type DeliveryNotification } from '../../../src/monitoring/delivery/deliverer.js';
import { resolveDeliveryConfig, type DeliveryConfigInput, type DeliveryLogger } from '../../../src/monitoring/delivery/delivery-config.js';
import { Outbox } from '../../../src/monitoring/delivery/outbox.js';
import { createWebhookChannel } from '../../../src/monitoring/delivery/webhook-channel.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import type { WebhookReceiver } from './webhook-receiver.js';

/** Each attempt's timeout unless a test sets its own: long enough that a loopback exchange on a loaded machine never times out by accident. */
const FIXTURE_ATTEMPT_TIMEOUT_MS = 10_000;

/** The account's webhook token in these tests. */
export const TOKEN = 'tok-secret-123';
/** A secret part of the webhook URL: it must never reach a log line. */
export const SECRET_PATH = '/hook/s3cret-path';

/** One kept log line. */
export type Line = { level: string; obj: Record<string, unknown>; msg: string };
/** A logger that keeps its lines. */
export function memoryLogger(): DeliveryLogger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** One monitoring file with a webhook notification and an alarm whose change is the event to send. */
export interface Fixture {
  readonly monitoring: MonitoringService;
  readonly outbox: Outbox;
  readonly logger: ReturnType<typeof memoryLogger>;
  readonly notificationId: string;
  readonly event: AlarmEventPayload;
  deliverer(config?: DeliveryConfigInput, channels?: Map<'webhook', Channel>): Deliverer;
  enqueue(notificationId?: string): string;
}

/** The notification with its secrets, undefined when deleted (what the runtime passes the deliverer). */
export function lookup(monitoring: MonitoringService, tenant: string, id: string): DeliveryNotification | undefined {
  try {
    const stored = monitoring.notifications.notificationWithSecrets(tenant, id);
    return { id: stored.id, label: stored.doc.label, type: stored.doc.type, details: stored.doc.details };
  } catch (error) {
    if (error instanceof StrataError && error.code === 'MONITORING_OBJECT_NOT_FOUND') return undefined;
    throw error;
  }
}

/** Opens the fixture in `dir`; with `created`, reuses the notification and event of a previous open (a restart). */
export function openFixture(dir: string, receiver: WebhookReceiver, created?: { notificationId: string; event: AlarmEventPayload }): Fixture {
  const monitoring = openMonitoring({ dir, clock: systemClock });
  const logger = memoryLogger();
  const outbox = new Outbox({ db: monitoring.store.db, clock: systemClock, logger });
  let notificationId = created?.notificationId;
  let event = created?.event;
  if (notificationId === undefined || event === undefined) {
    notificationId = monitoring.notifications.createNotification('acme', { label: 'hook', type: 'webhook', details: { url: `${receiver.url}${SECRET_PATH}` } });
    const entityId = monitoring.entities.createEntity('acme', { label: 'web-1', ip_addresses: { web: '192.0.2.10' } });
    const checkId = monitoring.entities.createCheck('acme', entityId, {
      type: 'remote.http', label: 'home', details: { url: 'https://example.com/' }, monitoring_zones_poll: ['mzdfw'], target_alias: 'web', period: 60, timeout: 30,
    });
    const plan = monitoring.notifications.createPlan('acme', { label: 'p', critical_state: [notificationId] });
    const alarmId = monitoring.entities.createAlarm('acme', entityId, { check_id: checkId, notification_plan_id: plan });
    const at = systemClock.now();
    event = buildAlarmEvent({
      tenant: 'acme',
      entity: monitoring.entities.entity('acme', entityId),
      check: monitoring.entities.check('acme', entityId, checkId),
      alarm: monitoring.entities.alarm('acme', entityId, alarmId),
      transition: { state: 'CRITICAL', previousState: 'OK', status: 'code=500', zoneId: 'mzdfw', timestampMs: at },
      result: { monitoringZoneId: 'mzdfw', timestampMs: at, available: true, status: 'code=500', metrics: { code: { type: 's', data: '500', unit: 'unknown' } } },
      observations: [{ zoneId: 'mzdfw', state: 'CRITICAL', status: 'code=500', timestampMs: at }],
      logEntryId: '6da55310-4200-41e1-aaaf-cd4c8801b6b1',
    });
  }
  const fixedNotification = notificationId;
  const fixedEvent = event;
  let txn = 0;
  return {
    monitoring,
    outbox,
    logger,
    notificationId: fixedNotification,
    event: fixedEvent,
    deliverer(config = {}, channels) {
      return new Deliverer({
        outbox,
        clock: systemClock,
        logger,
        config: resolveDeliveryConfig({ retryBaseMs: 10, retryMaxMs: 40, attemptsMax: 4, attemptTimeoutMs: FIXTURE_ATTEMPT_TIMEOUT_MS, ...config }),
        channels: channels ?? new Map([['webhook', createWebhookChannel('RAX')]]),
        notification: (tenant, id) => lookup(monitoring, tenant, id),
        account: () => ({ technicalContacts: [], webhookToken: TOKEN }),
        newTxnId: () => `.txn-test-${(txn += 1)}`,
      });
    },
    enqueue(id = fixedNotification) {
      return monitoring.store.transaction(() =>
        outbox.enqueue('acme', { notificationId: id, entityId: 'enX', alarmId: 'alX', checkId: 'chX', state: 'CRITICAL', event: fixedEvent }),
      );
    },
  };
}
