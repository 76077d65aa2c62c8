// Owns every bound of the agent's host information reads: items per list, text lengths, bytes read and answered, read concurrency, and the kernel units they convert.
import { assert } from '../../core/assert.js';
import { HOST_INFO_IN_FLIGHT_PER_AGENT_MAX } from '../../monitoring/monitoring-limits.js';
import { AGENT_FIELD_LENGTH_MAX, AGENT_LINE_BYTES_MAX, AGENT_PENDING_REQUESTS_MAX } from '../agent-limits.js';

/** Most processes one `processes` answer lists (the lowest pids); the answer says when it was cut. */
export const HOST_INFO_PROCESSES_MAX = 1_000;
/** Most items any other list (cpus, disks, filesystems, network interfaces, who) holds; the answer says when it was cut. */
export const HOST_INFO_ITEMS_MAX = 1_024;
/** Most list items the endpoint accepts in one host_info.get result (a protocol line bounds their bytes anyway). */
export const HOST_INFO_WIRE_ITEMS_MAX = 10_000;
/** Most types a host_info_types.get result may list. */
export const HOST_INFO_WIRE_TYPES_MAX = 64;
/** Longest text any field of an answer carries (paths, names, options); longer text is cut. */
export const HOST_INFO_TEXT_LENGTH_MAX = AGENT_FIELD_LENGTH_MAX;
/** Most bytes of JSON one host_info.get result may take: a protocol line less room for the envelope. Lists are cut from the end to fit. */
export const HOST_INFO_RESULT_BYTES_MAX = AGENT_LINE_BYTES_MAX - 16 * 1024;
/** Most bytes read of a small file (a /sys attribute, /proc/sys/kernel/*, /proc/<pid>/stat or status, os-release). */
export const HOST_INFO_SMALL_FILE_BYTES_MAX = 64 * 1024;
/** Bytes of one utmp record (glibc's struct utmp on Linux, every architecture). */
export const UTMP_RECORD_BYTES = 384;
/** Most utmp records read (the file lists current sessions only; beyond this it is not read). */
export const HOST_INFO_UTMP_RECORDS_MAX = 8_192;
/** Most files or links read at once while gathering one answer (per process, interface or mount). */
export const HOST_INFO_READ_CONCURRENCY = 16;
/** Clock ticks per second of /proc times (USER_HZ): 100 in the kernel's ABI on every architecture Strata's agent runs on. */
export const USER_HZ = 100;

assert(HOST_INFO_PROCESSES_MAX <= HOST_INFO_WIRE_ITEMS_MAX && HOST_INFO_ITEMS_MAX <= HOST_INFO_WIRE_ITEMS_MAX, 'the endpoint accepts every list the agent sends');
assert(HOST_INFO_RESULT_BYTES_MAX > 0 && HOST_INFO_RESULT_BYTES_MAX < AGENT_LINE_BYTES_MAX, 'a host info result fits a protocol line with its envelope');
assert(HOST_INFO_IN_FLIGHT_PER_AGENT_MAX < AGENT_PENDING_REQUESTS_MAX / 2, "host info requests leave most of a connection's pending requests to the protocol's own");
