// Tests the eventFeed channel against a real in-memory event-feed service: the entry, its category and tenant.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { MONITORING_ALERTS_FEED } from '../../../src/feeds/feed-catalog.js';
import { FEED_CONTENT_LENGTH_MAX } from '../../../src/feeds/feeds-limits.js';
import { openFeeds, type Feeds } from '../../../src/feeds/feeds-service.js';
import { createFeedChannel } from '../../../src/monitoring/delivery/feed-channel.js';
import { EVENT_TIME_MS, sampleEvent, sampleJob } from './channel-jobs.js';

const NEWEST = { limit: 10, marker: undefined, direction: 'forward' } as const;
let feeds: Feeds;

beforeEach(() => {
  feeds = openFeeds({ dir: undefined, clock: new ManualClock(EVENT_TIME_MS + 500), region: 'test' });
});

afterEach(() => {
  feeds.close();
});

describe('eventFeed channel', () => {
  it('publishes the event to the tenant monitoring alerts feed with category monitoring.alerts.<category>', async () => {
    const job = sampleJob('eventFeed', { details: { category: 'ops' } });
    const outcome = await createFeedChannel(feeds).deliver(job, AbortSignal.timeout(5_000));
    expect(outcome.ok).toBe(true);
    const { entries } = feeds.page('acme', MONITORING_ALERTS_FEED, NEWEST);
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(outcome).toEqual({ ok: true, detail: `published to the monitoring alerts feed as ${entry.id}` });
    expect(entry.title).toBe('[CRITICAL] web-1: High latency on HTTP home');
    expect(entry.categories).toEqual(['monitoring.alerts.ops', 'tid:acme', 'rgn:test', 'type:monitoring.alerts.ops']);
    expect(entry.content?.type).toBe('application/json');
    expect(JSON.parse(entry.content!.text)).toEqual(job.event);
    expect(entry.updatedMs).toBe(EVENT_TIME_MS + 500);
  });

  it('keeps tenants apart: another tenant sees nothing', async () => {
    await createFeedChannel(feeds).deliver(sampleJob('eventFeed', { details: { category: 'ops' } }), AbortSignal.timeout(5_000));
    expect(feeds.page('other', MONITORING_ALERTS_FEED, NEWEST).entries).toEqual([]);
  });

  it('falls back to the text body when the event does not fit the feed content limit', async () => {
    const event = sampleEvent({ status: 's'.repeat(FEED_CONTENT_LENGTH_MAX) });
    const outcome = await createFeedChannel(feeds).deliver(sampleJob('eventFeed', { details: { category: 'ops' }, event }), AbortSignal.timeout(5_000));
    expect(outcome.ok).toBe(true);
    const content = feeds.page('acme', MONITORING_ALERTS_FEED, NEWEST).entries[0]!.content!;
    expect(content.type).toBe('text');
    expect(content.text.startsWith('Alarm "High latency" is CRITICAL (was OK).\nStatus: sss')).toBe(true);
    expect(content.text.length).toBeLessThanOrEqual(FEED_CONTENT_LENGTH_MAX);
  });

  it('fails, not retryable, when the category cannot be a feed term or is missing', async () => {
    const channel = createFeedChannel(feeds);
    const tooLong = await channel.deliver(sampleJob('eventFeed', { details: { category: 'c'.repeat(300) } }), AbortSignal.timeout(5_000));
    expect(tooLong).toMatchObject({ ok: false, retryable: false });
    expect(!tooLong.ok && tooLong.error).toContain('FEED_ENTRY_INVALID');
    const control = await channel.deliver(sampleJob('eventFeed', { details: { category: 'a\nb' } }), AbortSignal.timeout(5_000));
    expect(control).toMatchObject({ ok: false, retryable: false });
    expect(await channel.deliver(sampleJob('eventFeed'), AbortSignal.timeout(5_000))).toEqual({ ok: false, retryable: false, error: 'the notification has no category' });
    expect(feeds.page('acme', MONITORING_ALERTS_FEED, NEWEST).entries).toEqual([]);
  });

  it('fails, retryable, when the feed store cannot write (closed)', async () => {
    const closed = openFeeds({ dir: undefined, clock: new ManualClock(EVENT_TIME_MS), region: 'test' });
    closed.close();
    const outcome = await createFeedChannel(closed).deliver(sampleJob('eventFeed', { details: { category: 'ops' } }), AbortSignal.timeout(5_000));
    expect(outcome).toMatchObject({ ok: false, retryable: true });
  });
});
