// Tests the who reader: utmp records in both byte orders, only user sessions listed, the host only for remote logins, a host without utmp.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hostPathsOf } from '../../../src/agent/host-info/host-files.js';
import { parseUtmp, USER_PROCESS } from '../../../src/agent/host-info/utmp.js';
import { readWho, whoItems } from '../../../src/agent/host-info/who-reader.js';
import { treesRemovedAfterEach, utmpRecord } from './host-fixtures.js';

const treeWith = treesRemovedAfterEach();

const BOOT_TIME = 2;
const LOGIN_PROCESS = 6;
const DEAD_PROCESS = 8;

const RECORDS = [
  { type: BOOT_TIME, line: '~', user: 'reboot', seconds: 1353950000 },
  { type: USER_PROCESS, pid: 812, line: 'tty1', user: 'testuser', seconds: 1353953846 },
  { type: USER_PROCESS, pid: 913, line: 'pts/2', user: 'testuser', host: '192.168.95.1', seconds: 1354117532 },
  { type: LOGIN_PROCESS, line: 'tty2', user: 'LOGIN', seconds: 1353950001 },
  { type: DEAD_PROCESS, line: 'pts/3', user: '', seconds: 1354124463 },
  // A user name filling its 32 bytes has no NUL; a host of 256 bytes neither.
  { type: USER_PROCESS, line: 'pts/4', user: 'u'.repeat(32), host: 'h'.repeat(256), seconds: 4_000_000_000 },
];

describe('who', () => {
  it('lists the user sessions of utmp with the reference fields, time in seconds', async () => {
    const root = treeWith({ utmp: Buffer.concat(RECORDS.map((record) => utmpRecord(record))) });
    const items = await readWho(hostPathsOf({ utmpPath: `${root}/utmp` }));
    expect(items).toEqual([
      { user: 'testuser', device: 'tty1', time: 1353953846 },
      { user: 'testuser', device: 'pts/2', time: 1354117532, host: '192.168.95.1' },
      { user: 'u'.repeat(32), device: 'pts/4', time: 4_000_000_000, host: 'h'.repeat(256) },
    ]);
  });

  it('reads big-endian records in big-endian order, ignores a partial record at the end', () => {
    const bytes = Buffer.concat([...RECORDS.map((record) => utmpRecord(record, false)), Buffer.alloc(100, 7)]);
    const records = parseUtmp(bytes, false);
    expect(records).toHaveLength(RECORDS.length);
    expect(records[2]).toEqual({ type: USER_PROCESS, pid: 913, line: 'pts/2', user: 'testuser', host: '192.168.95.1', seconds: 1354117532 });
    expect(whoItems(records)).toHaveLength(3);
  });

  it('answers no sessions on a host without utmp, and rejects a utmp it may not read', async () => {
    const root = treeWith({ 'dir/utmp/x': '' });
    expect(await readWho(hostPathsOf({ utmpPath: `${root}/missing` }))).toEqual([]);
    await expect(readWho(hostPathsOf({ utmpPath: `${root}/dir/utmp` }))).rejects.toMatchObject({ code: 'EISDIR' });
    writeFileSync(`${root}/empty`, '');
    expect(await readWho(hostPathsOf({ utmpPath: `${root}/empty` }))).toEqual([]);
  });
});
