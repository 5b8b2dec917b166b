// The few declarations of firebase-functions (v7) and firebase-admin (v13) that firebase.ts uses, as
// their own type files declare them: those packages weigh about 75 MB with their dependencies.

declare module 'firebase-functions/v2/identity' {
  /** What firebase-functions calls AuthUserRecord, reduced to the fields read here. */
  export interface AuthUserRecord {
    uid: string;
    email?: string;
    emailVerified: boolean;
  }
  export interface AuthBlockingEvent {
    data?: AuthUserRecord;
    ipAddress: string;
    userAgent: string;
    locale?: string;
  }
  export interface BeforeCreateResponse {
    displayName?: string;
    disabled?: boolean;
    emailVerified?: boolean;
    photoURL?: string;
    customClaims?: object;
  }
  export interface BlockingOptions {
    region?: string;
    timeoutSeconds?: number;
    minInstances?: number;
    secrets?: (string | import('firebase-functions/params').SecretParam)[];
  }
  export type FunctionsErrorCode = 'invalid-argument' | 'permission-denied' | 'unauthenticated' | 'unavailable' | 'internal';
  export class HttpsError extends Error {
    constructor(code: FunctionsErrorCode, message: string, details?: unknown);
    readonly code: FunctionsErrorCode;
  }
  export function beforeUserCreated(
    opts: BlockingOptions,
    handler: (event: AuthBlockingEvent) => BeforeCreateResponse | void | Promise<BeforeCreateResponse | void>,
  ): unknown;
}

declare module 'firebase-functions/v2/https' {
  export { HttpsError } from 'firebase-functions/v2/identity';
  export interface CallableRequest<T = unknown> {
    data: T;
    /** Present when the caller is signed in: the verified ID token's claims. */
    auth?: { uid: string; token: { email?: string; email_verified?: boolean } };
  }
  export interface CallableOptions {
    region?: string;
    timeoutSeconds?: number;
    secrets?: (string | import('firebase-functions/params').SecretParam)[];
  }
  export function onCall<T = unknown, Return = unknown>(opts: CallableOptions, handler: (request: CallableRequest<T>) => Return): unknown;
}

declare module 'firebase-functions/params' {
  /** A secret from Cloud Secret Manager (`firebase functions:secrets:set NAME`), read when the function runs. */
  export interface SecretParam {
    value(): string;
  }
  /** A parameter from functions/.env (or asked for at deploy), read when the function runs. */
  export interface BooleanParam {
    value(): boolean;
  }
  export function defineSecret(name: string): SecretParam;
  export function defineBoolean(name: string, options?: { default?: boolean; description?: string }): BooleanParam;
}

declare module 'firebase-admin/app' {
  export function initializeApp(): unknown;
}

declare module 'firebase-admin/auth' {
  export interface Auth {
    updateUser(uid: string, properties: { emailVerified?: boolean }): Promise<unknown>;
  }
  export function getAuth(): Auth;
}
