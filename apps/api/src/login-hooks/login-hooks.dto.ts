import { z } from 'zod';

const INVITE = z.unknown().meta({
  type: 'string',
  description: 'The invite code the person arrived with (the invite query parameter of the invitation link); anything but a string is ignored.',
  example: 'UL8jGQTF_RY-RaKPxkoQFJOB_es8LU5eDKfDIAkPmO0',
});

/**
 * Supabase Auth's "Before User Created" hook payload: the parts the check reads. Supabase sends more (the
 * whole auth.users row, the request's metadata) and may add fields: loose objects, so that the document
 * says so and a client typed from it may send them.
 */
export const SUPABASE_BEFORE_USER_CREATED = z
  .looseObject({
    metadata: z
      .looseObject({
        name: z.literal('before-user-created', { message: 'expected the before-user-created hook' }).meta({ description: 'Which Supabase Auth hook calls.' }),
      })
      .meta({ description: 'About the request, as Supabase Auth sends it.' }),
    user: z
      .looseObject({
        email: z.string({ message: 'expected the user’s email as a string' }).meta({
          description: 'The address signing up; empty for a sign-up with a phone number or an anonymous sign-in, which are refused.',
          example: 'ada@example.com',
        }),
        user_metadata: z
          .looseObject({ invite: INVITE.optional() })
          .nullish()
          .meta({ description: 'What the app passed as options.data to signUp; its invite member is the invite code.' }),
      })
      .meta({ description: 'The user about to be created, shaped as a row of auth.users.' }),
  })
  .meta({ id: 'SupabaseBeforeUserCreated', description: 'The payload Supabase Auth posts to a Before User Created HTTP hook.' });

/** The body a Kratos registration web_hook sends, as the Jsonnet template of docs/integrations/kratos.md renders it. */
export const KRATOS_REGISTRATION = z
  .object({
    // Read as anything, so that what is no address is refused like an address that was not invited.
    email: z
      .unknown()
      .refine((value) => value !== undefined, 'expected the address')
      .meta({ type: 'string', description: 'The address signing up: ctx.identity.traits.email.', example: 'ada@example.com' }),
    invite: INVITE.optional().nullable(),
  })
  .meta({ id: 'KratosRegistration', description: 'The body the registration web_hook’s Jsonnet template renders.' });

/** Supabase Auth lets the sign-up through on an empty object, and refuses it on an error object in a 200 answer. */
export const SUPABASE_ANSWER = z
  .union([
    z.object({}).strict().meta({ description: 'The sign-up may go on.' }),
    z
      .object({
        error: z.object({
          http_code: z.number().int().meta({ description: 'The status Supabase Auth answers the sign-up with: 403 not invited, 503 no decision in time.', example: 403 }),
          message: z.string().meta({ description: 'The reason, for the person signing up.', example: 'Sign-up is by invitation only, and this email address has not been invited.' }),
        }),
      })
      .meta({ description: 'The sign-up is refused; Supabase Auth passes http_code and message on to the app.' }),
  ])
  .meta({ id: 'SupabaseHookAnswer' });
export type SupabaseAnswer = z.infer<typeof SUPABASE_ANSWER>;

/** Kratos shows each message on the form field its instance_ptr names. */
export const KRATOS_REFUSAL = z
  .object({
    messages: z.array(
      z.object({
        instance_ptr: z.string().meta({ example: '#/traits/email' }),
        messages: z.array(
          z.object({
            id: z.number().int().meta({ description: '4100001 not invited, 4100002 no address, 4100003 no decision in time.', example: 4100001 }),
            text: z.string().meta({ example: 'Sign-up is by invitation only, and this email address has not been invited.' }),
            type: z.literal('error'),
            context: z.object({ reason: z.enum(['not_invited', 'no_address', 'unavailable']) }),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'KratosHookRefusal', description: 'Kratos stops the registration and shows the text at the email field.' });
export type KratosRefusal = z.infer<typeof KRATOS_REFUSAL>;

/** The dashboard's form for a new hook. */
export const NEW_LOGIN_HOOK = z.object({
  provider: z.enum(['supabase', 'kratos'], { message: 'choose the login system that will call the hook' }),
  failOpen: z.boolean(),
});
