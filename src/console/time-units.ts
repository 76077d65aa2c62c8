// Owns the console's lengths of time in ms, so every page counts a minute, an hour and a day the same way.

/** One second in ms. */
export const SECOND_MS = 1_000;

/** One minute in ms. */
export const MINUTE_MS = 60 * SECOND_MS;

/** One hour in ms. */
export const HOUR_MS = 60 * MINUTE_MS;

/** One day in ms (24 h; ranges are lengths of time, not calendar days). */
export const DAY_MS = 24 * HOUR_MS;

/** One week in ms (7 × DAY_MS). */
export const WEEK_MS = 7 * DAY_MS;
