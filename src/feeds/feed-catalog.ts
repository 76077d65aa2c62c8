// Owns the list of event feeds every tenant has: their paths, titles and default event types.

/** One feed of the catalog. */
export interface FeedInfo {
  /** Path under the tenant's feeds address, ending in /events (as the reference names feeds). */
  readonly path: string;
  /** Workspace and collection title in the service document. */
  readonly title: string;
  /** The type: term an entry gets when its publisher names no event type of its own. */
  readonly defaultType: string;
}

/** The usage-summary feed the reference names (spec 4, "Retrieve events of a feed"). */
export const BIGDATA_USAGE_FEED: FeedInfo = {
  path: 'usagesummary/bigdata/events',
  title: 'bigdata_usagesummary_events',
  defaultType: 'usagesummary.bigdata.events',
};

/** Where eventFeed notifications land (spec 2.5, 6.2); their categories start with ALERT_CATEGORY_PREFIX. */
export const MONITORING_ALERTS_FEED: FeedInfo = {
  path: 'monitoring/alerts/events',
  title: 'monitoring_alerts_events',
  defaultType: 'monitoring.alerts',
};

/** Prefix of every eventFeed notification's category (spec 2.5). */
export const ALERT_CATEGORY_PREFIX = 'monitoring.alerts.';

/** Every feed, in catalog order. */
export const FEEDS: readonly FeedInfo[] = [BIGDATA_USAGE_FEED, MONITORING_ALERTS_FEED];

