// Tests the managed channel: the job is reported delivered and recorded as one structured log line without secrets.
import { describe, expect, it } from 'vitest';
import { createManagedChannel, MANAGED_DETAIL } from '../../../src/monitoring/delivery/managed-channel.js';
import { sampleJob } from './channel-jobs.js';

/** A logger that keeps every line it is given. */
function collectingLogger(): { lines: { obj: object; msg: string }[]; info(obj: object, msg: string): void } {
  const lines: { obj: object; msg: string }[] = [];
  return { lines, info: (obj, msg) => lines.push({ obj, msg }) };
}

describe('managed channel', () => {
  it('reports the job delivered and logs its transaction id, tenant, alarm and state', async () => {
    const logger = collectingLogger();
    const job = sampleJob('managed');
    const outcome = await createManagedChannel(logger).deliver(job, AbortSignal.timeout(5_000));
    expect(outcome).toEqual({ ok: true, detail: MANAGED_DETAIL });
    expect(MANAGED_DETAIL).toBe('recorded for the managed service');
    expect(logger.lines).toEqual([
      {
        msg: 'managed notification recorded',
        obj: {
          txnId: '.rh-deliver-42',
          tenant: 'acme',
          outboxId: 'ob-1',
          attempt: 1,
          notificationId: 'ntOne',
          eventId: job.event.event_id,
          entityId: 'enWeb1',
          checkId: 'chHome',
          alarmId: 'alHigh',
          state: 'CRITICAL',
          previousState: 'OK',
          status: 'HTTP status 500 from www.example.test',
        },
      },
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain(job.account.webhookToken);
  });
});
