import { Module } from '@nestjs/common';
import { KeyCache } from './key-cache';
import { KeysService } from './keys.service';
import { SecretKeyGuard } from './secret-key.guard';

/** API keys: made, revoked, and checked on every /api/v1 request (SecretKeyGuard). */
@Module({ providers: [KeysService, KeyCache, SecretKeyGuard], exports: [KeysService, SecretKeyGuard] })
export class KeysModule {}
