// Owns the `who` host information: the login sessions utmp lists.
import { endianness } from 'node:os';
import { cutText, readHead, type HostPaths } from './host-files.js';
import { HOST_INFO_UTMP_RECORDS_MAX, UTMP_RECORD_BYTES } from './host-info-limits.js';
import { parseUtmp, USER_PROCESS, type UtmpRecord } from './utmp.js';

/** One item of the `who` answer: `time` in seconds since the epoch, as the reference's; `host` only for a remote login. */
export interface WhoItem {
  readonly user: string;
  readonly device: string;
  readonly time: number;
  readonly host?: string;
}

/** The user sessions among utmp records, in file order. */
export function whoItems(records: readonly UtmpRecord[]): WhoItem[] {
  return records
    .filter((record) => record.type === USER_PROCESS && record.user !== '')
    .map((record) => {
      const item = { user: cutText(record.user), device: cutText(record.line), time: record.seconds };
      return record.host === '' ? item : { ...item, host: cutText(record.host) };
    });
}

/** Reads utmp (at most HOST_INFO_UTMP_RECORDS_MAX records); a host without one (systemd hosts may keep none) has no sessions to list. */
export async function readWho(paths: HostPaths): Promise<WhoItem[]> {
  let bytes: Buffer;
  try {
    bytes = await readHead(paths.utmpPath, UTMP_RECORD_BYTES * HOST_INFO_UTMP_RECORDS_MAX);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return whoItems(parseUtmp(bytes, endianness() === 'LE'));
}
