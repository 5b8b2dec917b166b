import { applyDecorators, CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, IdempotencyRecord } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { from, lastValueFrom, Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import type { KeyScope } from '../common/scope';
import { ApiError, ErrorCode } from './api-error';

/** The Idempotency-Key header: visible ASCII, 1 to 255 characters. */
export const IDEMPOTENCY_KEY = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/)
  .meta({ description: 'Any 1 to 255 visible ASCII characters, such as a UUID you make for the request.', example: 'c6f1a7e2-4b0d-4e59-9a3e-2f8d7b1c5e04' });

/** A first request that has not finished after this long is taken as dead (its process went away). */
const ABANDONED_AFTER_MS = 15 * 60_000;
/** Answers that count as executed and are replayed; validation, rate limits and mail_failed are forgotten. */
export const REMEMBERED_ERRORS: ReadonlySet<ErrorCode> = new Set(['not_found', 'not_confirmed', 'already_invited', 'not_invited', 'already_redeemed']);

type Request = FastifyRequest & { keyScope?: KeyScope };

const BODY_SCHEMA = Symbol('idempotent body');

/**
 * Takes an Idempotency-Key on this route. `body` is the schema the route reads its body with: a repeat
 * is the same request when what the route reads is the same (fields it ignores and their order do not
 * count); a route without one reads no body, so a body sent to it does not count either.
 */
export const Idempotent = (body?: z.ZodType) => applyDecorators(SetMetadata(BODY_SCHEMA, body ?? null), UseInterceptors(IdempotencyInterceptor));

/**
 * Idempotency-Key for invite, reinvite, invite-next and redeem: one mechanism for all four. The first
 * request with a key runs and its answer is kept for IDEMPOTENCY_TTL; a repeat gets that answer with
 * Idempotent-Replayed: true, a concurrent one 409 idempotency_in_progress, and the same key with
 * another request 422 idempotency_key_reused.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return next.handle();
    const key = IDEMPOTENCY_KEY.safeParse(header);
    if (!key.success) throw new ApiError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const schema = this.reflector.get<z.ZodType | null>(BODY_SCHEMA, context.getHandler());
    // A body the route refuses is answered 400 and forgotten, so its raw form is as good as any.
    const read = schema?.safeParse(request.body);
    const body = schema ? (read?.success ? read.data : request.body) : null;
    const fingerprint = createHash('sha256').update(`${request.method} ${request.url.split('?')[0]}\n${JSON.stringify(body ?? null)}`).digest();
    return from(this.run(request, reply, key.data, fingerprint, next));
  }

  private async run(request: Request, reply: FastifyReply, key: string, fingerprint: Buffer, next: CallHandler): Promise<unknown> {
    const scope = request.keyScope!;
    const where = { productId: scope.productId, mode: scope.mode, key };
    const records = this.db.getRepository(IdempotencyRecord);
    let existing: IdempotencyRecord | null = null;
    // A first request that fails is forgotten at once; then the key is free again, so claim once more.
    for (let attempt = 0; attempt < 2 && !existing; attempt++) {
      if (await this.claim(scope, key, fingerprint)) return this.execute(reply, where, next);
      existing = await records.findOneBy(where);
    }
    if (!existing) throw new ApiError('idempotency_in_progress', 'A request with this Idempotency-Key is still running.');
    return this.replay(reply, existing, fingerprint);
  }

  /** Takes the key for this request: true when it is new, expired, or its first request was abandoned. */
  private async claim(scope: KeyScope, key: string, fingerprint: Buffer): Promise<boolean> {
    const now = this.clock.now();
    const [claimed]: { key: string }[] = await this.db.query(
      `INSERT INTO idempotency_keys (product_id, mode, key, fingerprint, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (product_id, mode, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL, created_at = EXCLUDED.created_at
         WHERE idempotency_keys.created_at < $6 OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < $7)
       RETURNING key`,
      [scope.productId, scope.mode, key, fingerprint, now, new Date(now.getTime() - this.config.IDEMPOTENCY_TTL), new Date(now.getTime() - ABANDONED_AFTER_MS)],
    );
    return claimed !== undefined;
  }

  private async execute(reply: FastifyReply, where: Pick<IdempotencyRecord, 'productId' | 'mode' | 'key'>, next: CallHandler) {
    const records = this.db.getRepository(IdempotencyRecord);
    try {
      const result = await lastValueFrom(next.handle(), { defaultValue: undefined });
      await records.update(where, { status: reply.statusCode, body: JSON.stringify(result ?? null) });
      return result;
    } catch (error) {
      if (error instanceof ApiError && REMEMBERED_ERRORS.has(error.code)) {
        await records.update(where, { status: error.status, body: JSON.stringify({ code: error.code, message: error.message, ...error.details }) });
      } else {
        await records.delete(where);
      }
      throw error;
    }
  }

  private replay(reply: FastifyReply, record: IdempotencyRecord, fingerprint: Buffer): unknown {
    if (!record.fingerprint.equals(fingerprint)) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used for a different request.');
    }
    if (record.status === null) {
      throw new ApiError('idempotency_in_progress', 'A request with this Idempotency-Key is still running.');
    }
    void reply.header('Idempotent-Replayed', 'true');
    const body = JSON.parse(record.body ?? 'null');
    if (record.status >= 400) {
      const { code, message, ...details } = body as { code: ErrorCode; message: string; param?: string };
      throw new ApiError(code, message, details);
    }
    return body;
  }
}
