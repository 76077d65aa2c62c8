// Owns how the console writes and reads instants for people: local time, `YYYY-MM-DD HH:MM:SS` to show, and the datetime-local form of the range inputs.

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

function dateOf(ms: number): Date | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** An instant as the browser's local `YYYY-MM-DD HH:MM:SS` (e.g. the plan's retention cut, changelog rows, "Updated …"); '—' when `ms` is not a time. */
export function formatTime(ms: number): string {
  const date = dateOf(ms);
  if (date === undefined) return '—';
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The datetime-local value of an instant (`YYYY-MM-DDTHH:MM:SS`, browser time zone, to the second); '' when `ms` is not a time. */
export function formatLocalDateTime(ms: number): string {
  const date = dateOf(ms);
  if (date === undefined) return '';
  return formatTime(ms).replace(' ', 'T');
}

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The ms of a datetime-local value (`2024-05-01T13:30`, seconds optional) in the browser's time
 * zone, or undefined when the text is not such a value or names a local time that does not exist
 * (a day past the month's end, or a time skipped by a daylight-saving change).
 */
export function parseLocalDateTime(text: string): number | undefined {
  const match = LOCAL_DATE_TIME.exec(text.trim());
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as [number, number, number, number, number, number];
  const date = new Date(2000, 0, 1, 0, 0, 0, 0);
  // setFullYear, not the constructor: the constructor reads years 0-99 as 1900-1999.
  date.setFullYear(year, month - 1, day);
  date.setHours(hour, minute, second, 0);
  // Every field must read back unchanged: a rolled-over day or a DST gap (02:30 becoming 03:30) is refused rather than guessed.
  const same =
    date.getFullYear() === year && date.getMonth() === month - 1 && date.getDate() === day && date.getHours() === hour && date.getMinutes() === minute && date.getSeconds() === second;
  const ms = date.getTime();
  return same && Number.isSafeInteger(ms) ? ms : undefined;
}
