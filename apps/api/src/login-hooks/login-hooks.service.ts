import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, LoginHook, LoginHookProvider, newId, SecretBox, withTimeout } from '@app/shared';
import { DataSource, IsNull } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { InviteCodesService } from '../invitations/invite-codes.service';
import { Decision, HookAnswer, HookCall, LOGIN_SYSTEMS, LoginSystem, SignUp } from './login-systems';

/** Hooks must answer within a second: the check gets this long, the rest is for the way there and back. */
export const HOOK_BUDGET_MS = 800;

const HOOK_ID = /^lh_[0-9a-f]{24}$/;

/** A new hook as the dashboard shows it once: what to paste into the login system. */
export interface NewLoginHook {
  id: string;
  provider: LoginHookProvider;
  url: string;
  secret: string;
}

type OpenHook = Omit<LoginHook, 'secret'> & { secret: string };

const ALLOWED: Decision = { allowed: true };

/**
 * Sign-up hooks: a login system asks, while someone signs up to the product, whether they may. The
 * answer is the invited check of the hook's product and mode, after redeeming the invite code the
 * sign-up carries when it is the code of that very address. The team makes and revokes hooks in
 * the dashboard; each has its own secret, shown once and stored sealed.
 */
/** What sign-up hook secrets are sealed for (SecretBox's purpose). */
export const LOGIN_HOOK_SECRETS = 'waitlist login hook secrets';

@Injectable()
export class LoginHooksService {
  private readonly logger = new Logger('LoginHooks');
  private readonly secrets: SecretBox;
  /**
   * Each hook as this process last read it (null: there is none), secret opened. It stands in for the
   * database when that fails or is slow, so that a hook still authenticates its calls and, when it
   * fails open, lets sign-ups through.
   */
  private readonly lastRead = new Map<string, OpenHook | null>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly codes: InviteCodesService,
  ) {
    this.secrets = new SecretBox(config.ENCRYPTION_KEY, LOGIN_HOOK_SECRETS);
  }

  async create(scope: ProductScope, input: { provider: LoginHookProvider; failOpen: boolean }): Promise<NewLoginHook> {
    const secret = LOGIN_SYSTEMS[input.provider].newSecret();
    const id = newId('lh');
    await this.db.getRepository(LoginHook).insert({
      id,
      ...scope,
      provider: input.provider,
      secret: this.secrets.seal(secret),
      failOpen: input.failOpen,
      createdAt: this.clock.now(),
      revokedAt: null,
    });
    return { id, provider: input.provider, url: this.urlOf(input.provider, id), secret };
  }

  /** The hooks of a product and mode, revoked ones too, newest first. */
  async list(scope: ProductScope): Promise<LoginHook[]> {
    return this.db.getRepository(LoginHook).find({ where: scope, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** A hook of this product and mode that is in use, or null. */
  async inUse(scope: ProductScope, id: string): Promise<LoginHook | null> {
    return this.db.getRepository(LoginHook).findOneBy({ id, ...scope, revokedAt: IsNull() });
  }

  /** Revokes a hook of this product and mode; false when it has no such hook in use. */
  async revoke(scope: ProductScope, id: string): Promise<boolean> {
    const result = await this.db.getRepository(LoginHook).update({ id, ...scope, revokedAt: IsNull() }, { revokedAt: this.clock.now() });
    this.lastRead.delete(id);
    return (result.affected ?? 0) > 0;
  }

  /** Where the login system calls the hook. */
  urlOf(provider: LoginHookProvider, id: string): string {
    return `${this.config.PUBLIC_BASE_URL}/hooks/v1/${provider}/${id}`;
  }

  /**
   * The answer to a login system's call, within HOOK_BUDGET_MS. An unknown or revoked hook is 404, a
   * call without the hook's secret 401, a body the login system would not send 400: nothing changes.
   * A check that fails or runs out of time refuses the sign-up, or lets it through when the hook fails open.
   */
  async check<Body>(system: LoginSystem<Body>, hookId: string, call: HookCall): Promise<HookAnswer<Body>> {
    const deadline = performance.now() + HOOK_BUDGET_MS;
    const hook = await this.hookFor(system.provider, hookId, deadline);
    // No call can be trusted without its hook; a refusal gives nothing away.
    if (hook === 'unavailable') return system.answer({ allowed: false, reason: 'unavailable' });
    if (!hook) throw new ApiError('not_found', 'No such sign-up hook: it was never made, or it was revoked.');
    if (!system.authentic(hook.secret, call)) throw new ApiError('unauthorized', system.unauthenticated);
    return system.answer(await this.decide(hook, system.signUp(call), deadline));
  }

  private async hookFor(provider: LoginHookProvider, id: string, deadline: number): Promise<OpenHook | null | 'unavailable'> {
    if (!HOOK_ID.test(id)) return null;
    let hook: OpenHook | null | undefined;
    try {
      const row = await withTimeout(this.db.getRepository(LoginHook).findOneBy({ id }), Math.max(deadline - performance.now(), 0), 'reading the hook');
      hook = row && { ...row, secret: this.secrets.open(row.secret) };
      this.lastRead.set(id, hook);
    } catch {
      hook = this.lastRead.get(id);
      if (hook === undefined) return 'unavailable';
    }
    return hook && hook.provider === provider && !hook.revokedAt ? hook : null;
  }

  private async decide(hook: OpenHook, signUp: SignUp, deadline: number): Promise<Decision> {
    try {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error('no time was left after reading the hook');
      return await withTimeout(this.admit({ productId: hook.productId, mode: hook.mode }, signUp), left, 'the check');
    } catch (error) {
      // The error's code or our own words: a database message might quote a value of the sign-up.
      const why = (error as { code?: string }).code ?? (error as Error).message;
      this.logger.warn(`Sign-up hook ${hook.id} could not decide (${why}); the sign-up was ${hook.failOpen ? 'let through (fail open)' : 'refused (fail closed)'}.`);
      return hook.failOpen ? ALLOWED : { allowed: false, reason: 'unavailable' };
    }
  }

  /**
   * Invited or redeemed, as the invited check answers. An invite code is redeemed first, but only
   * when it belongs to this very address (verify tells): a code sent to someone else is not spent.
   */
  private async admit(scope: ProductScope, { email, invite }: SignUp): Promise<Decision> {
    if (!email) return { allowed: false, reason: 'no_address' };
    if (invite) {
      const code = await this.codes.verify(scope, invite);
      if (code.valid && code.email === email) await this.codes.redeem(scope, invite);
    }
    return (await this.codes.isInvited(scope, email)).invited ? ALLOWED : { allowed: false, reason: 'not_invited' };
  }
}
