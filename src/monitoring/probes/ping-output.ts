// Owns reading the output of iputils ping: its echo replies and its summary, and what a run of `count` pings made of them.

/** One echo reply ping printed. */
export interface PingReply {
  /** icmp_seq: 1 for the first request sent. */
  readonly seq: number;
  /** Round trip in milliseconds, as printed (a decimal, usually with three places). */
  readonly timeMs: number;
}

/** What ping reported: the replies (duplicates left out) and how many requests its summary says it sent. */
export interface PingReport {
  readonly transmitted: number;
  readonly replies: readonly PingReply[];
}

/** A reply line: `64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.045 ms` (`time<1 ms` on some builds). */
const REPLY_LINE = /^\d+ bytes from [^ ]+: icmp_seq=(\d+) .*\btime[=<]([0-9]+(?:\.[0-9]+)?) ms/;
/** The summary line: `5 packets transmitted, 4 received, ...`. */
const SUMMARY_LINE = /^(\d+) packets transmitted, (\d+) received\b/;
/** ping marks a reply to a request already answered. */
const DUPLICATE_MARK = '(DUP!)';

/**
 * The replies and the transmitted count of iputils ping's output (run with -n, in the C locale),
 * or null when the output has no summary line: the program did not run as ping, or was killed
 * before it finished. Lines of other kinds (errors, unreachable notices, the header) are skipped.
 */
export function parsePingOutput(output: string): PingReport | null {
  const replies: PingReply[] = [];
  let transmitted: number | null = null;
  for (const line of output.split('\n')) {
    const reply = REPLY_LINE.exec(line);
    if (reply !== null) {
      if (!line.includes(DUPLICATE_MARK)) replies.push({ seq: Number(reply[1]), timeMs: Number(reply[2]) });
      continue;
    }
    const summary = SUMMARY_LINE.exec(line);
    if (summary !== null) transmitted = Number(summary[1]);
  }
  return transmitted === null ? null : { transmitted, replies };
}

/** The outcome of one run of `count` pings, whatever the method: how many were sent and the round trips of those answered. */
export interface PingTally {
  /** Pings sent (at most count: a run whose deadline came first sent fewer). */
  readonly sent: number;
  /** Round trips of the answered pings, in milliseconds. */
  readonly roundTripsMs: readonly number[];
}

/**
 * The tally of the first `count` requests of a report. With a deadline, ping keeps sending after
 * a lost reply until it has `count` replies; those extra requests are not part of the run.
 */
export function tallyOf(report: PingReport, count: number): PingTally {
  const answered = new Map<number, number>();
  for (const reply of report.replies) {
    if (reply.seq >= 1 && reply.seq <= count && !answered.has(reply.seq)) answered.set(reply.seq, reply.timeMs);
  }
  return { sent: Math.min(report.transmitted, count), roundTripsMs: [...answered.values()] };
}
