import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { LoginHooksService, NewLoginHook } from '../../apps/api/src/login-hooks/login-hooks.service';
import { codeIn, invitationStack, invitationsTo } from './invitations';
import { joinLine } from './flows';

/** The payload Supabase Auth posts to a Before User Created hook, as its documentation shows it. */
export function supabasePayload(email: string, userMetadata: Record<string, unknown> = {}) {
  return {
    metadata: { uuid: randomUUID(), time: new Date().toISOString(), name: 'before-user-created', ip_address: '127.0.0.1' },
    user: {
      id: randomUUID(),
      aud: 'authenticated',
      role: '',
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: userMetadata,
      identities: [],
      created_at: '0001-01-01T00:00:00Z',
      updated_at: '0001-01-01T00:00:00Z',
      is_anonymous: false,
    },
  };
}

/** Standard Webhooks headers as Supabase Auth sends them, signed with the standardwebhooks package. */
export function signed(secret: string, body: string, at = new Date()): Record<string, string> {
  const id = randomUUID();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    // Supabase's secret is "v1,whsec_<base64>"; the library takes the part after "v1,".
    'webhook-signature': new Webhook(secret.replace(/^v1,/, '')).sign(id, at, body),
  };
}

/** The signature built by hand, as the Standard Webhooks specification and Supabase's docs describe it. */
export function handSigned(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^v1,whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export const REFUSED_NOT_INVITED = { error: { http_code: 403, message: 'Sign-up is by invitation only, and this email address has not been invited.' } };
export const REFUSED_UNAVAILABLE = { error: { http_code: 503, message: 'Sign-up cannot be checked right now. Please try again in a moment.' } };

export function kratosRefusal(id: number, reason: string, text: string) {
  return { messages: [{ instance_ptr: '#/traits/email', messages: [{ id, text, type: 'error', context: { reason } }] }] };
}


/** A stack with a Supabase and a Kratos hook on the test mode of its product, both failing closed, and how to call them. */
export async function hookStack() {
  const { stack, product, pk, client } = await invitationStack();
  const hooks = stack.api.get(LoginHooksService);
  const supabase = await hooks.create({ productId: product.id, mode: 'test' }, { provider: 'supabase', failOpen: false });
  const kratos = await hooks.create({ productId: product.id, mode: 'test' }, { provider: 'kratos', failOpen: false });
  const path = (hook: NewLoginHook) => new URL(hook.url).pathname;

  /** An invited entry of the test mode, and the code of its invitation mail. */
  async function invited(email: string): Promise<string> {
    const entry = await joinLine(stack, pk, email);
    expect((await client.invite(entry.id)).status).toBe(200);
    return codeIn(invitationsTo(stack, email)[0]);
  }

  const callSupabase = (payload: unknown, hook = supabase, headers?: (body: string) => Record<string, string>) => {
    const body = JSON.stringify(payload);
    return stack.request({ method: 'POST', url: path(hook), headers: { 'content-type': 'application/json', ...(headers ?? ((text) => signed(hook.secret, text)))(body) }, payload: body });
  };
  const callKratos = (body: unknown, hook = kratos, authorization = `Bearer ${hook.secret}`) =>
    stack.request({ method: 'POST', url: path(hook), headers: { authorization }, body });

  return { stack, product, pk, client, supabase, kratos, path, invited, callSupabase, callKratos };
}

export type HookStack = Awaited<ReturnType<typeof hookStack>>;
