// Owns test notifications: one attempt now through the notification type's channel with a synthetic event marked as a test, bounded in flight, never queued, retried or recorded.
import { StrataError } from '../../core/errors.js';
import type { AlarmDoc } from '../alarm-rules.js';
import type { CheckDoc } from '../check-rules.js';
import type { StoredDoc } from '../doc-store.js';
import type { EntityDoc } from '../entity-rules.js';
import { newUuid } from '../ids.js';
import { TEST_NOTIFICATIONS_IN_FLIGHT_MAX, TEST_NOTIFICATIONS_PER_TENANT_MAX } from '../monitoring-limits.js';
import type { NotificationTypeId } from '../notification-types.js';
import { buildAlarmEvent } from './alarm-event.js';
import type { AlarmEventPayload, Channel, ChannelOutcome, DeliveryAccount, DeliveryJob } from './channel-types.js';
import { runAttempt } from './delivery-attempt.js';
import type { DeliveryNotification } from './deliverer.js';

/** Placeholder ids of the test event's entity, check and alarm (no object of the tenant has them: real ids are random). */
export const TEST_EVENT_IDS = { entity: 'enTestNotification', check: 'chTestNotification', alarm: 'alTestNotification' } as const;
/** The status message of every test event. */
export const TEST_EVENT_STATUS = 'Test notification from Strata: no alarm changed state; this message checks that notifications reach you.';

/**
 * The webhook token a test of an unsaved notification carries: none (the header is sent empty).
 * The account's token proves a delivery comes from this account; a caller naming any URL must not
 * be able to collect it, so only a saved notification's test (whose URL a writer already chose
 * for real deliveries) carries it.
 */
export const UNSAVED_TEST_WEBHOOK_TOKEN = '';

/** Where a tested notification comes from: `saved` (POST /notifications/{id}/test) or `unsaved` (POST /test-notification, a body naming any target). */
export type TestedNotificationOrigin = 'saved' | 'unsaved';

/** The suppression ids of a record no suppression names. */
const NONE = { active: [], scheduled: [] } as const;

/** The answer of a test notification: the outcome of its one attempt. */
export interface TestNotificationResult {
  readonly status: 'success' | 'failure';
  /** The channel's note on success (e.g. `webhook answered 200`), its error otherwise; never a secret. */
  readonly message: string;
  readonly notification_type: NotificationTypeId;
  readonly duration_ms: number;
  readonly transaction_id: string;
}

/** What test notifications are sent with: the runtime's channels and settings. */
export interface TestNotificationDeps {
  readonly channels: ReadonlyMap<NotificationTypeId, Channel>;
  /** The delivery attempt timeout (DeliveryConfig.attemptTimeoutMs). */
  readonly attemptTimeoutMs: number;
  readonly clock: { now(): number };
  readonly newTxnId: () => string;
  /** The tenant's delivery settings (technical contacts, webhook token). */
  account(tenant: string): DeliveryAccount;
  /** Aborted when the runtime stops: an attempt in flight ends as a failure. */
  readonly stop: AbortSignal;
  /** In flight at once in the process and per tenant (TEST_NOTIFICATIONS_IN_FLIGHT_MAX, TEST_NOTIFICATIONS_PER_TENANT_MAX). */
  readonly limits?: { readonly inFlightMax: number; readonly perTenantMax: number };
}

/**
 * The spec 6.1 payload of a test: built by buildAlarmEvent like every real event (so receivers see
 * the real shape) over placeholder entity, check and alarm records labelled as tests, state OK
 * (an incident channel resolves nothing that exists rather than opening a page), no metrics, the
 * status TEST_EVENT_STATUS, and `test: true` at the top.
 */
export function testEvent(tenant: string, nowMs: number, txnId: string): AlarmEventPayload {
  const stored = <D>(id: string, entityId: string | null, doc: D): StoredDoc<D> => ({ id, entityId, doc, createdMs: nowMs, updatedMs: nowMs });
  const entity = stored<EntityDoc>(TEST_EVENT_IDS.entity, null, { label: 'Test entity', ip_addresses: {}, metadata: null, agent_id: null, managed: false, uri: null });
  const check = stored<CheckDoc>(TEST_EVENT_IDS.check, TEST_EVENT_IDS.entity, {
    label: 'Test check',
    type: 'remote.http',
    details: {},
    monitoring_zones_poll: null,
    target_alias: null,
    target_hostname: null,
    target_resolver: null,
    period: 60,
    timeout: 30,
    disabled: false,
    metadata: null,
  });
  const alarm = stored<AlarmDoc>(TEST_EVENT_IDS.alarm, TEST_EVENT_IDS.entity, {
    check_id: TEST_EVENT_IDS.check,
    notification_plan_id: '',
    criteria: null,
    label: 'Test alarm',
    disabled: false,
    metadata: null,
  });
  const event = buildAlarmEvent({
    tenant,
    entity,
    check,
    alarm,
    logEntryId: newUuid(),
    txnId,
    transition: { state: 'OK', previousState: null, status: TEST_EVENT_STATUS, zoneId: '', timestampMs: nowMs },
    result: { monitoringZoneId: '', timestampMs: nowMs, available: true, status: TEST_EVENT_STATUS, metrics: {} },
    observations: [],
    // No suppression covers a placeholder: the records say so with empty lists.
    suppressions: { entity: NONE, check: NONE, alarm: NONE },
  });
  return { ...event, test: true };
}

/**
 * Sends test notifications: each is one attempt now through the channel of the notification's
 * type (the same channels, address guard and attempt timeout as real deliveries), never queued,
 * retried, or written to the outbox or the history. At most `inFlightMax` run at once in the
 * process and `perTenantMax` per tenant; more are refused at once with MONITORING_TEST_RUNS_BUSY.
 */
export class TestNotifications {
  private inFlight = 0;
  /** Only tenants with a test in flight, so the map holds at most inFlightMax entries. */
  private readonly byTenant = new Map<string, number>();
  private readonly limits: { readonly inFlightMax: number; readonly perTenantMax: number };

  constructor(private readonly deps: TestNotificationDeps) {
    this.limits = deps.limits ?? { inFlightMax: TEST_NOTIFICATIONS_IN_FLIGHT_MAX, perTenantMax: TEST_NOTIFICATIONS_PER_TENANT_MAX };
  }

  /**
   * Sends one test of `notification` (details with secrets in plaintext) for `tenant`; resolves
   * with the attempt's outcome. A saved notification's test carries the account's webhook token as
   * real deliveries do; an unsaved one's carries UNSAVED_TEST_WEBHOOK_TOKEN instead.
   */
  async send(tenant: string, notification: DeliveryNotification, origin: TestedNotificationOrigin): Promise<TestNotificationResult> {
    const release = this.admit(tenant);
    try {
      return await this.attempt(tenant, notification, origin);
    } finally {
      release();
    }
  }

  /** The account settings a test is sent with: the tenant's, without its webhook token for an unsaved notification. */
  private accountFor(tenant: string, origin: TestedNotificationOrigin): DeliveryAccount {
    const account = this.deps.account(tenant);
    return origin === 'saved' ? account : { ...account, webhookToken: UNSAVED_TEST_WEBHOOK_TOKEN };
  }

  private async attempt(tenant: string, notification: DeliveryNotification, origin: TestedNotificationOrigin): Promise<TestNotificationResult> {
    const txnId = this.deps.newTxnId();
    const startedMs = this.deps.clock.now();
    const channel = this.deps.channels.get(notification.type);
    let outcome: ChannelOutcome | 'stopped';
    if (channel === undefined) {
      outcome = { ok: false, retryable: false, error: `no channel delivers ${notification.type} notifications` };
    } else {
      const job: DeliveryJob = { outboxId: `test.${txnId}`, tenant, attempt: 1, txnId, notification, event: testEvent(tenant, startedMs, txnId), account: this.accountFor(tenant, origin) };
      outcome = await runAttempt(channel, job, this.deps.attemptTimeoutMs, this.deps.stop);
    }
    const durationMs = Math.max(0, this.deps.clock.now() - startedMs);
    const base = { notification_type: notification.type, duration_ms: durationMs, transaction_id: txnId };
    if (outcome === 'stopped') return { status: 'failure', message: 'the server is stopping', ...base };
    return outcome.ok ? { status: 'success', message: outcome.detail, ...base } : { status: 'failure', message: outcome.error, ...base };
  }

  /** Takes a slot for `tenant` or throws MONITORING_TEST_RUNS_BUSY; the returned function gives it back once. */
  private admit(tenant: string): () => void {
    const mine = this.byTenant.get(tenant) ?? 0;
    if (mine >= this.limits.perTenantMax) throw busy('this tenant', 'tenant', this.limits.perTenantMax);
    if (this.inFlight >= this.limits.inFlightMax) throw busy('all tenants', 'server', this.limits.inFlightMax);
    this.inFlight += 1;
    this.byTenant.set(tenant, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      const left = (this.byTenant.get(tenant) ?? 1) - 1;
      if (left <= 0) this.byTenant.delete(tenant);
      else this.byTenant.set(tenant, left);
    };
  }
}

function busy(whose: string, scope: 'tenant' | 'server', limit: number): StrataError {
  return new StrataError('MONITORING_TEST_RUNS_BUSY', `Too many test notifications in flight for ${whose} (at most ${limit}); retry after the Retry-After seconds.`, { scope, limit });
}
