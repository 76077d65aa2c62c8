// Tests what the monitoring runtime logs of an error: name, code and frames, never the message.
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { loggableError } from '../../src/monitoring/loggable-error.js';

describe('loggableError', () => {
  it('keeps name, code and stack frames and drops the message, which may quote a secret', () => {
    const error = Object.assign(new Error('GET https://bob:hunter2@example.com/ failed'), { code: 'ECONNREFUSED' });
    const fields = loggableError(error);
    expect(fields).toMatchObject({ errName: 'Error', errCode: 'ECONNREFUSED' });
    expect((fields['frames'] as string[]).length).toBeGreaterThan(0);
    expect(JSON.stringify(fields)).not.toContain('hunter2');
  });

  it('keeps a StrataError code, and says only the type of a thrown non-error', () => {
    expect(loggableError(new StrataError('MONITORING_SECRET_UNREADABLE', 'token secret-x does not decrypt'))).toMatchObject({ errCode: 'MONITORING_SECRET_UNREADABLE' });
    expect(loggableError('secret-x')).toEqual({ errType: 'string' });
  });
});
