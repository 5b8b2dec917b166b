import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ENTRY_ID } from '../entries/entries.dto';
import { ENTRY_PROFILE, EntryProfile } from '../entries/profile.dto';
import { secretKeyOperation } from './operations';

const EXAMPLE: EntryProfile = {
  id: 'ent_5f0c2a9e4b7d1c3a8e6f9b20',
  locale: 'de',
  answers: { role: 'Founder', tools: ['Slack', 'Jira'], consent: true },
  attribution: { utm_source: 'newsletter', utm_campaign: 'launch', referrer: 'https://news.example/issue-12', landing_page: 'https://acme.example/join?utm_source=newsletter&utm_campaign=launch' },
};

/** An entry's profile (PATHS takes it in). */
export const PROFILE_PATHS: ZodOpenApiPathsObject = {
  '/api/v1/entries/{id}/profile': {
    get: secretKeyOperation({
      operationId: 'getEntryProfile',
      tags: ['Entries'],
      summary: "Read an entry's profile",
      description:
        "What is known about the person behind the entry beside the Entry object's fields: the language of its mails and hosted pages; what its sign-up said beside its address: its answers to the product's sign-up questions, by question key, and where it came from (UTM parameters, referring page, landing page). The first sign-up of an address is the one kept; signing up again changes neither.",
      path: ENTRY_ID,
      ok: { status: 200, description: 'The profile.', schema: ENTRY_PROFILE, example: EXAMPLE },
      errors: { 404: ['not_found'] },
    }),
  },
};
