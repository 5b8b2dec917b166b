import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import type { AppConfig } from '../config/config';

/**
 * Fields pino replaces wherever a line carries them: credentials in request headers, and the names
 * our lines never use for secrets, tokens or addresses, should one ever be passed.
 */
const REDACTED = ['req.headers.authorization', 'req.headers.cookie', 'token', 'secret', 'password', 'email', '*.token', '*.secret', '*.password', '*.email'];

/**
 * An app's logger: one JSON line per event on stdout (or `destination`), each with the app's name, an
 * ISO time and, for a request or the work it left, its requestId.
 */
export function createLogger(app: string, level: AppConfig['LOG_LEVEL'], destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { app },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination(1),
  );
}

/**
 * Nest's logger on top of pino: Nest's own lines and our `new Logger(context)` lines become JSON lines
 * like the rest. A message may be an object of fields (with `msg`), such as a job's requestId.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }

  /** Nest passes (message, stack, context), the stack undefined when there is none. */
  error(message: unknown, ...rest: unknown[]): void {
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
    this.write('error', message, rest.slice(-1), stack ?? (message instanceof Error ? message.stack : undefined));
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: Level, message: unknown, rest: unknown[], stack?: string): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const context = typeof rest.at(-1) === 'string' ? (rest.at(-1) as string) : undefined;
    const fields = typeof message === 'object' && message !== null && !(message instanceof Error) ? (message as Record<string, unknown>) : { msg: message instanceof Error ? message.message : String(message) };
    this.logger[level]({ context, ...fields, ...(stack ? { stack } : {}) });
  }
}
