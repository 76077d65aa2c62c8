// Checks the summary log of failed TLS handshakes: the first failure logged at once, the rest at most one line per interval with their counts and reasons, nothing when nothing failed.
import { describe, expect, it } from 'vitest';
import { AGENT_LOG_SUMMARY_REASONS_MAX } from '../../../src/agent/agent-limits.js';
import { TlsFailureLog } from '../../../src/agent/endpoint/agent-endpoint-log.js';
import { RecordingLogger, until } from './endpoint-fixtures.js';

function coded(code: string): Error {
  return Object.assign(new Error('handshake failed'), { code });
}

describe('TlsFailureLog', () => {
  it('logs the first failure at once and what follows in one line per interval', async () => {
    const logger = new RecordingLogger();
    const log = new TlsFailureLog(logger, 50);
    try {
      log.note(coded('ECONNRESET'), '192.0.2.1');
      expect(logger.lines).toHaveLength(1);
      expect(logger.lines[0]?.obj).toMatchObject({ failures: 1, reasons: { ECONNRESET: 1 }, lastRemote: '192.0.2.1', failuresTotal: 1 });
      log.note(coded('ERR_SSL_WRONG_VERSION_NUMBER'), '192.0.2.2');
      log.note(coded('ERR_SSL_WRONG_VERSION_NUMBER'), '192.0.2.3');
      log.note(new Error('no code'), undefined);
      expect(logger.lines).toHaveLength(1);
      await until(() => logger.lines.length === 2);
      expect(logger.lines[1]?.obj).toMatchObject({ failures: 3, reasons: { ERR_SSL_WRONG_VERSION_NUMBER: 2, other: 1 }, failuresTotal: 4 });
      expect(log.failures).toBe(4);
      // A quiet interval logs nothing, and the next failure is logged at once again.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(logger.lines).toHaveLength(2);
      log.note(coded('ECONNRESET'), '192.0.2.4');
      expect(logger.lines).toHaveLength(3);
      expect(logger.lines[2]?.obj).toMatchObject({ failures: 1, failuresTotal: 5 });
    } finally {
      log.stop();
    }
  });

  it('counts at most AGENT_LOG_SUMMARY_REASONS_MAX reasons per line, the rest as other', () => {
    const logger = new RecordingLogger();
    const log = new TlsFailureLog(logger, 60_000);
    log.note(coded('FIRST'), undefined);
    for (let i = 0; i < AGENT_LOG_SUMMARY_REASONS_MAX * 3; i++) log.note(coded(`E${i}`), undefined);
    log.stop();
    expect(logger.lines).toHaveLength(2);
    const reasons = logger.lines[1]?.obj.reasons as Record<string, number>;
    expect(Object.keys(reasons)).toHaveLength(AGENT_LOG_SUMMARY_REASONS_MAX);
    expect(Object.values(reasons).reduce((sum, count) => sum + count, 0)).toBe(AGENT_LOG_SUMMARY_REASONS_MAX * 3);
    expect(reasons.other).toBe(AGENT_LOG_SUMMARY_REASONS_MAX * 3 - (AGENT_LOG_SUMMARY_REASONS_MAX - 1));
  });
});
