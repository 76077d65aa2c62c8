// Owns parsing one process's /proc/<pid>/stat line and the boot time of /proc/stat, which its start time counts from.
import { fieldsOf, linesOf, parseCount } from '../collectors/proc-fields.js';

/** The fields of /proc/<pid>/stat the processes answer uses (proc(5) numbering in the comments); times in USER_HZ ticks. */
export interface PidStat {
  readonly pid: number;
  /** The command name (field 2, without its parentheses; it may hold blanks and parentheses). */
  readonly comm: string;
  /** Field 10. */
  readonly minorFaults: number;
  /** Field 12. */
  readonly majorFaults: number;
  /** Field 14. */
  readonly utime: number;
  /** Field 15. */
  readonly stime: number;
  /** Field 18 (negative for real-time processes). */
  readonly priority: number;
  /** Field 20. */
  readonly threads: number;
  /** Field 22: ticks after boot. */
  readonly startTicks: number;
  /** Field 23: virtual memory size in bytes. */
  readonly vsizeBytes: number;
  /** Field 24: resident pages. */
  readonly rssPages: number;
}

/** Fields after the command name a line must carry (state, field 3, through rss, field 24). */
const FIELDS_AFTER_COMM_MIN = 22;

function signed(token: string | undefined): number | undefined {
  if (token === undefined || !/^-?\d{1,19}$/.test(token)) return undefined;
  const value = Number(token);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Parses a /proc/<pid>/stat line, or undefined when it is not one. The command name ends at the LAST ')' of the line,
 * since a process may name itself with blanks and parentheses.
 */
export function parsePidStat(text: string): PidStat | undefined {
  const open = text.indexOf(' (');
  const close = text.lastIndexOf(')');
  if (open <= 0 || close < open) return undefined;
  const pid = parseCount(text.slice(0, open));
  const rest = fieldsOf(text.slice(close + 1).replace(/\n$/, ''));
  if (pid === undefined || rest.length < FIELDS_AFTER_COMM_MIN) return undefined;
  // rest[0] is field 3 (state): field n is rest[n - 3].
  const at = (field: number): number | undefined => signed(rest[field - 3]);
  const values = [at(10), at(12), at(14), at(15), at(18), at(20), at(22), at(23), at(24)];
  if (values.some((value) => value === undefined)) return undefined;
  const [minorFaults, majorFaults, utime, stime, priority, threads, startTicks, vsizeBytes, rssPages] = values as number[];
  return {
    pid,
    comm: text.slice(open + 2, close),
    minorFaults: minorFaults as number,
    majorFaults: majorFaults as number,
    utime: utime as number,
    stime: stime as number,
    priority: priority as number,
    threads: threads as number,
    startTicks: startTicks as number,
    vsizeBytes: vsizeBytes as number,
    rssPages: rssPages as number,
  };
}

/** The boot time of /proc/stat's `btime` line in seconds since the epoch, or undefined. */
export function bootTimeSeconds(procStat: string): number | undefined {
  for (const line of linesOf(procStat)) {
    const fields = fieldsOf(line);
    if (fields[0] === 'btime' && fields.length === 2) return parseCount(fields[1]);
  }
  return undefined;
}
