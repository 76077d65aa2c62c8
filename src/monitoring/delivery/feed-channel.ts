// Owns the eventFeed channel: an alarm event as an entry of the tenant's monitoring alerts feed.
import { StrataError } from '../../core/errors.js';
import type { EntryContent } from '../../feeds/feed-entry.js';
import { FEED_CONTENT_LENGTH_MAX, FEED_TITLE_LENGTH_MAX } from '../../feeds/feeds-limits.js';
import { publishAlert, type Feeds } from '../../feeds/feeds-service.js';
import { CHANNEL_ERROR_TEXT_LENGTH_MAX } from '../monitoring-limits.js';
import { alertBodyLines, alertSubject, alertSummary, singleLine, truncateText } from './alert-text.js';
import type { AlarmEventPayload, Channel, ChannelOutcome, DeliveryJob } from './channel-types.js';

function failure(retryable: boolean, error: string): ChannelOutcome {
  return { ok: false, retryable, error: truncateText(singleLine(error), CHANNEL_ERROR_TEXT_LENGTH_MAX) };
}

/**
 * The entry's content: the spec 6.1 event as application/json when it fits the feed's content
 * limit, else the alert's plain-text body (cut to the limit), so an oversized event still
 * leaves a readable entry.
 */
export function feedContent(event: AlarmEventPayload): EntryContent {
  const json = JSON.stringify(event);
  if (json.length <= FEED_CONTENT_LENGTH_MAX) return { type: 'application/json', text: json };
  return { type: 'text', text: truncateText(alertBodyLines(alertSummary(event)).join('\n'), FEED_CONTENT_LENGTH_MAX) };
}

/**
 * The eventFeed channel: publishes to the tenant's monitoring alerts feed with the category
 * `monitoring.alerts.<details.category>` (publishAlert adds the prefix), titled with the alert's
 * subject. The write is synchronous: delivered, or failed; a rule the entry breaks
 * (FEED_ENTRY_INVALID, such as a category too long for a feed term) is not retryable; an
 * unavailable service or any other error (a busy database) is.
 */
export function createFeedChannel(feeds: Feeds): Channel {
  const deliver = (job: DeliveryJob): Promise<ChannelOutcome> => {
    const category = job.notification.details.category;
    if (typeof category !== 'string' || category === '') return Promise.resolve(failure(false, 'the notification has no category'));
    const title = truncateText(alertSubject(alertSummary(job.event)), FEED_TITLE_LENGTH_MAX);
    try {
      const entry = publishAlert(feeds, job.tenant, category, { title, content: feedContent(job.event) });
      return Promise.resolve({ ok: true, detail: `published to the monitoring alerts feed as ${entry.id}` });
    } catch (err) {
      if (err instanceof StrataError) return Promise.resolve(failure(err.kind === 'unavailable', `feed entry refused (${err.code}): ${err.message}`));
      return Promise.resolve(failure(true, `feed write failed: ${err instanceof Error ? err.message : String(err)}`));
    }
  };
  return { type: 'eventFeed', deliver };
}
