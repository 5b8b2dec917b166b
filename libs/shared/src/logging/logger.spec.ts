import { Logger } from '@nestjs/common';
import { createLogger, NestPinoLogger } from './logger';

describe(NestPinoLogger.name, () => {
  function capture(level: 'info' | 'warn' = 'info') {
    const lines: Record<string, unknown>[] = [];
    const nest = new NestPinoLogger(createLogger('mailer', level, { write: (line: string) => void lines.push(JSON.parse(line)) }));
    return { lines, nest };
  }

  it('writes a JSON line with the app, the level, the context and the fields of an object message', () => {
    const { lines, nest } = capture();
    nest.log('started', 'MailSender');
    nest.warn({ msg: 'not handed over', requestId: 'req-1' }, 'MailSender');
    expect(lines).toEqual([
      expect.objectContaining({ app: 'mailer', level: 'info', context: 'MailSender', msg: 'started' }),
      expect.objectContaining({ app: 'mailer', level: 'warn', context: 'MailSender', msg: 'not handed over', requestId: 'req-1' }),
    ]);
  });

  it('keeps an error’s stack, as Nest’s Logger passes it', () => {
    const { lines, nest } = capture();
    const logger = new Logger('Relay');
    Logger.overrideLogger(nest);
    try {
      logger.error('failed', 'Error: boom\n    at somewhere');
      logger.error('failed again');
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines).toEqual([
      expect.objectContaining({ level: 'error', context: 'Relay', msg: 'failed', stack: 'Error: boom\n    at somewhere' }),
      expect.objectContaining({ level: 'error', context: 'Relay', msg: 'failed again' }),
    ]);
  });

  it('drops what is below the level, and redacts fields named like secrets or addresses', () => {
    const { lines, nest } = capture('warn');
    nest.log('quiet');
    nest.debug('quieter');
    nest.warn({ msg: 'loud', email: 'ada@example.com', token: 't0ken', details: { secret: 's3cret' } });
    expect(lines).toEqual([expect.objectContaining({ msg: 'loud', email: '[redacted]', token: '[redacted]', details: { secret: '[redacted]' } })]);
  });
});
