// Owns parsing utmp(5): glibc's fixed 384-byte records of who is logged in, read in the host's byte order.
import { UTMP_RECORD_BYTES } from './host-info-limits.js';

/** ut_type of a user's login session. */
export const USER_PROCESS = 7;

/** One utmp record's fields the who answer uses. */
export interface UtmpRecord {
  readonly type: number;
  readonly pid: number;
  /** The terminal (`pts/0`, `tty1`). */
  readonly line: string;
  readonly user: string;
  /** The remote host, '' for a local login. */
  readonly host: string;
  /** When the session started, seconds since the epoch. */
  readonly seconds: number;
}

/** Offsets and sizes within a record (struct utmp of glibc on Linux: the time is two 32-bit fields on every architecture). */
const LAYOUT = { type: 0, pid: 4, line: 8, lineBytes: 32, user: 44, userBytes: 32, host: 76, hostBytes: 256, seconds: 340 } as const;

/** A fixed-size char field: up to its first NUL (it need not have one), as UTF-8 (invalid bytes become U+FFFD). */
function text(record: Buffer, offset: number, bytes: number): string {
  const field = record.subarray(offset, offset + bytes);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? bytes : end).toString('utf8');
}

/** One record; `littleEndian` is the host's byte order (utmp is written in it). */
export function parseUtmpRecord(record: Buffer, littleEndian: boolean): UtmpRecord {
  const int16 = (offset: number): number => (littleEndian ? record.readInt16LE(offset) : record.readInt16BE(offset));
  const int32 = (offset: number): number => (littleEndian ? record.readInt32LE(offset) : record.readInt32BE(offset));
  return {
    type: int16(LAYOUT.type),
    pid: int32(LAYOUT.pid),
    line: text(record, LAYOUT.line, LAYOUT.lineBytes),
    user: text(record, LAYOUT.user, LAYOUT.userBytes),
    host: text(record, LAYOUT.host, LAYOUT.hostBytes),
    // ut_tv.tv_sec is a signed 32-bit field; read it unsigned so sessions after 2038 keep counting up.
    seconds: littleEndian ? record.readUInt32LE(LAYOUT.seconds) : record.readUInt32BE(LAYOUT.seconds),
  };
}

/** Every whole record of a utmp file's bytes, in file order (a partial record at the end is ignored). */
export function parseUtmp(bytes: Buffer, littleEndian: boolean): UtmpRecord[] {
  const records: UtmpRecord[] = [];
  for (let offset = 0; offset + UTMP_RECORD_BYTES <= bytes.length; offset += UTMP_RECORD_BYTES) {
    records.push(parseUtmpRecord(bytes.subarray(offset, offset + UTMP_RECORD_BYTES), littleEndian));
  }
  return records;
}
