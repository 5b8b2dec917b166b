// The parts of Auth0's pre-user-registration Action that auth0-pre-user-registration.js uses, as
// Auth0's reference for the trigger's event and api objects describes them: Auth0 publishes no
// package with these types.

export interface PreUserRegistrationEvent {
  /** The Action's secrets, set in its editor. */
  secrets: Record<string, string | undefined>;
  user: {
    email?: string;
    user_metadata?: Record<string, unknown>;
  };
  request: {
    /** The body of the sign-up request: custom fields of the sign-up prompt arrive as `ulp-<name>`. */
    body?: Record<string, unknown>;
    language?: string;
    ip: string;
  };
  connection: { id: string; name: string; strategy: string };
}

export interface PreUserRegistrationAPI {
  access: {
    /** Refuses the sign-up: `reason` goes to Auth0's logs, `userMessage` to the person. */
    deny(reason: string, userMessage: string): PreUserRegistrationAPI;
  };
  user: {
    setUserMetadata(name: string, value: unknown): PreUserRegistrationAPI;
    setAppMetadata(name: string, value: unknown): PreUserRegistrationAPI;
  };
}
