import { Module } from '@nestjs/common';
import { KeysService } from './keys.service';
import { SecretKeyGuard } from './secret-key.guard';

/** API keys: made, revoked, and checked on every /api/v1 request (SecretKeyGuard). */
@Module({ providers: [KeysService, SecretKeyGuard], exports: [KeysService, SecretKeyGuard] })
export class KeysModule {}
