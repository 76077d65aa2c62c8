// Owns the status text of an alarm verdict: metric values as text, `#{metric}` interpolation and the length cut.
import { STATUS_MESSAGE_LENGTH_MAX } from '../alarm-language/language-limits.js';
import type { CheckResult } from '../check-result.js';

/** Status of a verdict reached by a return without a message outside any `if` (the default return), or by no return at all. */
export const DEFAULT_RETURN_STATUS = 'Matched default return statement';
/** Status of an available result evaluated without criteria. */
export const AVAILABLE_STATUS = 'Check is available';
/** Status of an unavailable result without criteria whose own status is empty. */
export const UNAVAILABLE_STATUS = 'Check is unavailable';
/** Prefix of the status of an unavailable result no `if` branch of the criteria decided. */
export const CHECK_FAILED_PREFIX = 'Check failed: ';

/** Text of a metric value: a string as is, a number as JavaScript prints it (`200`, `0.25`). */
export function valueText(value: number | string): string {
  return typeof value === 'number' ? String(value) : value;
}

/** `text` cut to STATUS_MESSAGE_LENGTH_MAX characters (never splitting a surrogate pair). */
export function statusText(text: string): string {
  if (text.length <= STATUS_MESSAGE_LENGTH_MAX) return text;
  let cut = text.slice(0, STATUS_MESSAGE_LENGTH_MAX);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

const PLACEHOLDER = /#\{([^}]*)\}/g;

/**
 * A return's message with every `#{name}` replaced by the current value of metric `name`;
 * a placeholder naming a metric the result does not have stays as written (`#{name}`), so the
 * reader sees which value was missing. The result is cut to STATUS_MESSAGE_LENGTH_MAX.
 */
export function interpolate(message: string, current: CheckResult): string {
  const text = message.replace(PLACEHOLDER, (whole: string, name: string) => {
    const metric = Object.hasOwn(current.metrics, name) ? current.metrics[name] : undefined;
    return metric === undefined ? whole : valueText(metric.data);
  });
  return statusText(text);
}
