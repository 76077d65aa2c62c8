// Owns the metrics each check type Strata runs produces: name, one-letter type and unit, as its probe or collector writes them.
import type { MetricTypeCode } from '../check-result.js';

/** One metric a check type's runs produce (the `metrics` of a check type, an addition to the reference's shape). */
export interface CheckTypeMetric {
  /** The bare metric name; `body_match_<key>` stands for one metric per key of details.body_matches. */
  readonly name: string;
  /** One-letter type code as operation 5 shows it: i int32, I uint32, l int64, L uint64, n double, s string. */
  readonly type: MetricTypeCode;
  readonly unit: string;
  readonly description: string;
}

function metric(name: string, type: MetricTypeCode, unit: string, description: string): CheckTypeMetric {
  return { name, type, unit, description };
}

const MS = 'milliseconds';
const PERCENT = 'percent';

const HTTP: readonly CheckTypeMetric[] = [
  metric('code', 's', 'unknown', 'HTTP status code of the final response, as text (200, 404...).'),
  metric('duration', 'I', MS, 'Time the whole request took, redirects included.'),
  metric('tt_connect', 'I', MS, 'Time until the connection was made.'),
  metric('tt_firstbyte', 'I', MS, 'Time until the first byte of the response.'),
  metric('bytes', 'i', 'bytes', 'Bytes of the response body read.'),
  metric('truncated', 'I', 'bytes', 'Bytes of the body left unread beyond the read limit.'),
  metric('body_match', 's', 'unknown', "Text details.body matched in the body, '' when it did not match; only when details.body is given."),
  metric('body_match_<key>', 's', 'unknown', "Text the pattern details.body_matches.<key> matched in the body, '' when it did not match; one per key."),
];

const TCP: readonly CheckTypeMetric[] = [
  metric('tt_connect', 'I', MS, 'Time until the connection was made (and TLS negotiated).'),
  metric('duration', 'I', MS, 'Time the whole exchange took.'),
  metric('tt_firstbyte', 'I', MS, 'Time until the first byte the server sent; only when it sent one.'),
  metric('banner', 's', 'unknown', 'First line the server sent; only when details.banner_match is given.'),
  metric('banner_match', 's', 'unknown', "Text details.banner_match matched in the banner, '' when it did not match."),
  metric('body_match', 's', 'unknown', "Text details.body_match matched in the reply, '' when it did not match; only when details.body_match is given."),
  metric('cert_error', 's', 'unknown', "Why the server's TLS certificate does not verify, '' when it does; only with details.ssl."),
];

const PING: readonly CheckTypeMetric[] = [
  metric('available', 'n', PERCENT, 'Percent of the pings sent that were answered.'),
  metric('count', 'i', 'unknown', 'Pings sent.'),
  metric('method', 's', 'unknown', 'How the zone pinged: icmp, or tcp where ICMP is not permitted.'),
  metric('average', 'n', 'seconds', 'Average round trip of the answered pings; only when one was answered.'),
  metric('minimum', 'n', 'seconds', 'Shortest round trip; only when a ping was answered.'),
  metric('maximum', 'n', 'seconds', 'Longest round trip; only when a ping was answered.'),
];

const DNS: readonly CheckTypeMetric[] = [
  metric('rcode', 's', 'unknown', 'Response code of the answer: NOERROR, NXDOMAIN, SERVFAIL, REFUSED...'),
  metric('answer', 's', 'unknown', 'The records of the answer as text, separated by spaces.'),
  metric('answer_count', 'i', 'unknown', 'Records in the answer.'),
  metric('rtt', 'n', MS, 'Time until the answer came.'),
  metric('ttl', 'I', 'seconds', 'Lowest time to live of the records; only for A and AAAA answers.'),
  metric('duration', 'I', MS, 'Time the whole query took.'),
];

const CPU: readonly CheckTypeMetric[] = [
  metric('cpu_count', 'L', 'count', 'CPUs of the host.'),
  metric('usage_average', 'n', PERCENT, 'Busy time (100 - idle) averaged over the CPUs, since the previous collection.'),
  metric('min_cpu_usage', 'n', PERCENT, 'Busy time of the least busy CPU.'),
  metric('max_cpu_usage', 'n', PERCENT, 'Busy time of the busiest CPU.'),
  metric('user_percent_average', 'n', PERCENT, 'Time in user mode (nice included), averaged over the CPUs.'),
  metric('sys_percent_average', 'n', PERCENT, 'Time in kernel mode, averaged over the CPUs.'),
  metric('idle_percent_average', 'n', PERCENT, 'Idle time, averaged over the CPUs.'),
  metric('wait_percent_average', 'n', PERCENT, 'Time waiting for I/O, averaged over the CPUs.'),
  metric('irq_percent_average', 'n', PERCENT, 'Time serving interrupts, averaged over the CPUs.'),
  metric('stolen_percent_average', 'n', PERCENT, 'Time stolen by the hypervisor, averaged over the CPUs.'),
];

const MEMORY: readonly CheckTypeMetric[] = [
  metric('total', 'l', 'bytes', 'Memory of the host.'),
  metric('free', 'l', 'bytes', 'Memory not used at all.'),
  metric('used', 'l', 'bytes', 'total - free.'),
  metric('actual_free', 'l', 'bytes', 'Memory available to programs without swapping (MemAvailable).'),
  metric('actual_used', 'l', 'bytes', 'total - actual_free.'),
  metric('ram', 'l', 'megabytes', 'Installed RAM in MiB, rounded up to a multiple of 8.'),
  metric('swap_total', 'l', 'bytes', 'Swap space.'),
  metric('swap_free', 'l', 'bytes', 'Swap space free.'),
  metric('swap_used', 'l', 'bytes', 'Swap space used.'),
  metric('swap_page_in', 'l', 'pages', 'Pages swapped in since boot (counter).'),
  metric('swap_page_out', 'l', 'pages', 'Pages swapped out since boot (counter).'),
];

const LOAD_AVERAGE: readonly CheckTypeMetric[] = [
  metric('1m', 'n', 'unknown', 'Load average over 1 minute.'),
  metric('5m', 'n', 'unknown', 'Load average over 5 minutes.'),
  metric('15m', 'n', 'unknown', 'Load average over 15 minutes.'),
];

const DISK: readonly CheckTypeMetric[] = [
  metric('reads', 'L', 'reads', 'Reads completed since boot (counter).'),
  metric('writes', 'L', 'writes', 'Writes completed since boot (counter).'),
  metric('read_bytes', 'L', 'bytes', 'Bytes read since boot (counter).'),
  metric('write_bytes', 'L', 'bytes', 'Bytes written since boot (counter).'),
  metric('rtime', 'L', MS, 'Time spent reading since boot (counter).'),
  metric('wtime', 'L', MS, 'Time spent writing since boot (counter).'),
  metric('time', 'L', MS, 'Time the device was busy since boot (counter).'),
  metric('qtime', 'L', MS, 'Time weighted by requests in flight since boot (counter).'),
  metric('service_time', 'n', MS, 'Busy time per completed I/O since the previous collection.'),
  metric('queue', 'n', 'requests', 'Average I/O requests in flight since the previous collection.'),
];

const FILESYSTEM: readonly CheckTypeMetric[] = [
  metric('total', 'l', 'kilobytes', 'Size of the file system.'),
  metric('free', 'l', 'kilobytes', 'Free space, the part reserved for the superuser included.'),
  metric('used', 'l', 'kilobytes', 'total - free.'),
  metric('avail', 'l', 'kilobytes', 'Free space ordinary users may use.'),
  metric('files', 'l', 'files', 'Inodes of the file system.'),
  metric('free_files', 'l', 'free_files', 'Free inodes.'),
  metric('options', 's', 'unknown', 'Mount options (rw, relatime...).'),
];

/** The counters /proc/net/dev gives for one direction of an interface. */
function directionMetrics(way: 'rx' | 'tx'): CheckTypeMetric[] {
  const what = way === 'rx' ? 'received' : 'sent';
  return [
    metric(`${way}_bytes`, 'L', 'bytes', `Bytes ${what} since boot (counter; alarms take rate()).`),
    metric(`${way}_packets`, 'L', 'packets', `Packets ${what} since boot (counter).`),
    metric(`${way}_errors`, 'L', 'errors', `Errors while packets were ${what} (counter).`),
    metric(`${way}_dropped`, 'L', 'packets', `Packets dropped while ${what} (counter).`),
    metric(`${way}_overruns`, 'L', 'overruns', `FIFO overruns while packets were ${what} (counter).`),
  ];
}

const NETWORK: readonly CheckTypeMetric[] = [
  ...directionMetrics('rx'),
  metric('rx_frame', 'L', 'frames', 'Frame alignment errors (counter).'),
  ...directionMetrics('tx'),
  metric('tx_collisions', 'L', 'collisions', 'Collisions (counter).'),
  metric('tx_carrier', 'L', 'errors', 'Carrier errors (counter).'),
  metric('link_state', 's', 'link_state', 'Link state from the carrier: up, down or unknown.'),
];

/** The metrics of each check type Strata runs, by type id. */
export const CHECK_TYPE_METRICS: Readonly<Record<string, readonly CheckTypeMetric[]>> = {
  'remote.http': HTTP,
  'remote.tcp': TCP,
  'remote.ping': PING,
  'remote.dns': DNS,
  'agent.cpu': CPU,
  'agent.memory': MEMORY,
  'agent.load_average': LOAD_AVERAGE,
  'agent.disk': DISK,
  'agent.filesystem': FILESYSTEM,
  'agent.network': NETWORK,
};

/** How a catalogue name stands for a family of metrics: `body_match_<key>`. */
const KEY_SUFFIX = '<key>';

function stands(entry: CheckTypeMetric, name: string): boolean {
  if (!entry.name.endsWith(KEY_SUFFIX)) return entry.name === name;
  const prefix = entry.name.slice(0, -KEY_SUFFIX.length);
  return name.length > prefix.length && name.startsWith(prefix);
}

/** The catalogue entry a metric name of a type stands for (`body_match_x` → `body_match_<key>`), or undefined. */
export function metricEntry(type: string, name: string): CheckTypeMetric | undefined {
  return (CHECK_TYPE_METRICS[type] ?? []).find((entry) => stands(entry, name));
}
