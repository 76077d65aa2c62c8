// Owns the managed channel: an alarm event recorded in the log for the managed service, which has no endpoint of its own.
import { alertSummary } from './alert-text.js';
import type { Channel, ChannelOutcome, DeliveryJob } from './channel-types.js';

/** The part of the delivery logger the managed channel writes with (a DeliveryLogger or a pino Logger fits). */
export interface ManagedLogger {
  info(obj: object, msg: string): void;
}

/** The note of every managed delivery. */
export const MANAGED_DETAIL = 'recorded for the managed service';

/**
 * The managed channel: logs one structured line per job (transaction id, tenant, notification,
 * entity, check, alarm, state and the alarm's message; managed notifications have no details, so
 * no secret can reach the line) and reports it delivered.
 */
export function createManagedChannel(logger: ManagedLogger): Channel {
  const deliver = (job: DeliveryJob): Promise<ChannelOutcome> => {
    const summary = alertSummary(job.event);
    logger.info(
      {
        txnId: job.txnId,
        tenant: job.tenant,
        outboxId: job.outboxId,
        attempt: job.attempt,
        notificationId: job.notification.id,
        eventId: job.event.event_id,
        entityId: summary.entityId,
        checkId: summary.checkId,
        alarmId: summary.alarmId,
        state: summary.state,
        previousState: summary.previousState ?? null,
        status: summary.status,
      },
      'managed notification recorded',
    );
    return Promise.resolve({ ok: true, detail: MANAGED_DETAIL });
  };
  return { type: 'managed', deliver };
}
