// Owns the contract between the delivery loop and the notification channels: one job in, one outcome out.
import type { NotificationTypeId } from '../notification-types.js';
import type { NotificationDetails } from '../schemas/notification-details-schema.js';

/**
 * The spec 6.1 payload of an alarm state change (event_id, log_entry_id, details, entity, check,
 * alarm, tenant_id); built once when the change is recorded (alarm-event.ts) and stored in the
 * outbox, so every attempt sends the same body.
 */
export type AlarmEventPayload = Readonly<Record<string, unknown>> & {
  readonly event_id: string;
  readonly log_entry_id: string;
  readonly tenant_id: string;
};

/** The account settings a delivery needs. */
export interface DeliveryAccount {
  /** Addresses technicalContactsEmail notifications go to. */
  readonly technicalContacts: readonly string[];
  /** Sent as `x-<vendor>-webhook-token` on webhook deliveries (spec 5.4). */
  readonly webhookToken: string;
}

/** One attempt to deliver one notification of one alarm state change. */
export interface DeliveryJob {
  /** The outbox row this attempt belongs to. */
  readonly outboxId: string;
  readonly tenant: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Transaction id of this attempt (logged, and sent as a header where the channel has headers). */
  readonly txnId: string;
  readonly notification: {
    readonly id: string;
    readonly label: string;
    readonly type: NotificationTypeId;
    /** Details with secrets in plaintext (NotificationService.notificationWithSecrets). */
    readonly details: NotificationDetails;
  };
  readonly event: AlarmEventPayload;
  readonly account: DeliveryAccount;
}

/** What an attempt did: delivered (with a short note), or failed, retryable or not. */
export type ChannelOutcome =
  | { readonly ok: true; readonly detail: string }
  | { readonly ok: false; readonly retryable: boolean; readonly error: string };

/** A notification channel: delivers jobs of one notification type. */
export interface Channel {
  readonly type: NotificationTypeId;
  /** Delivers once; must settle by the time `signal` aborts (the attempt timeout) and never throws for a target's failure. */
  deliver(job: DeliveryJob, signal: AbortSignal): Promise<ChannelOutcome>;
}
