import { z } from 'zod';
import type { ZodOpenApiOverrideMetaContext } from 'zod-openapi';
import { single } from '../common/validation';
import { CUSTOM_MAPPING, KNOWN_FORMATS } from './formats/columns';
import { PROBLEM_REASONS } from './import-row';

/** The request body of an import: at most this many bytes of CSV (100,000 rows of a tool's export are 5–10 MB). */
export const IMPORT_BODY_LIMIT = 20 * 1024 * 1024;

/** How many rows, and bad rows, a report lists (in file order); its counts cover every row. */
export const REPORT_LIST_LIMIT = 1000;

const flag = (description: string) =>
  single
    .refine((text) => text === 'true' || text === 'false', { message: 'expected true or false' })
    .transform((text) => text === 'true')
    .optional()
    .transform((value) => value ?? false)
    .meta({ description, override: ({ jsonSchema }: ZodOpenApiOverrideMetaContext) => Object.assign(jsonSchema, { type: 'boolean', default: false }) });

/** The import's query parameters; the dashboard's upload form and the CLI read theirs with it too. */
export const IMPORT_QUERY = z.object({
  dryRun: flag('true: read the whole file and answer what would happen, writing nothing.'),
  mapping: single
    .pipe(CUSTOM_MAPPING)
    .optional()
    .meta({
      description: `A JSON object from the file's column headers to fields (email, createdAt, referralCode, referredBy, referralCount, state, id), for a file that is not an export of ${KNOWN_FORMATS.map((format) => format.name).join(', ')}. A bad mapping answers 400 invalid_request with param mapping.<column> for a column mapped to an unknown field, else mapping.`,
      example: '{"Email Address":"email","Joined":"createdAt"}',
    }),
  checksum: single
    .regex(/^[0-9a-f]{64}$/, { message: "expected the checksum of a dry run's answer" })
    .optional()
    .meta({
      description: "The checksum of the dry run's answer: the import writes the rows that dry run read, read as it read them, or nothing (400 invalid_request, param checksum, when a row, the mapping or the state differs).",
    }),
  state: z
    .enum(['confirmed', 'pending'], { message: 'expected confirmed or pending' })
    .default('confirmed')
    .meta({ description: "The state of a row whose file gives none: confirmed (in line) or pending (asked to confirm)." }),
  confirmationMails: flag('true: every entry imported as pending gets a confirmation mail; by default nobody gets a mail.'),
  events: flag('true: every imported entry emits entry.created (and entry.confirmed when it is imported confirmed) to webhooks; by default an import emits no event.'),
});
export type ImportQuery = z.infer<typeof IMPORT_QUERY>;

const ROW_OUTCOME = z
  .object({
    line: z.number().int().meta({ description: 'The line of the file the row starts on (1 is the header row).' }),
    email: z.string().nullable().meta({ description: 'The address as it will be stored; null for a row without a valid one.' }),
    outcome: z.enum(['create', 'existing', 'suppressed', 'invalid']).meta({
      description: 'create: a new entry; existing: the product and mode has the address, unchanged; suppressed: deleted or unsubscribed before, not brought back; invalid: see problems.',
    }),
  })
  .meta({ id: 'ImportRowOutcome' });

const PROBLEM = z
  .object({
    line: z.number().int().meta({ description: 'The line of the file the row starts on.' }),
    reason: z.enum(PROBLEM_REASONS).meta({ description: 'Why the row is not imported.' }),
    message: z.string().meta({ description: 'The same, for people.' }),
  })
  .meta({ id: 'ImportProblem' });

/** What an import did (or, in a dry run, would do). */
export const IMPORT_REPORT = z
  .object({
    dryRun: z.boolean().meta({ description: 'true: nothing was written.' }),
    format: z.string().meta({ description: `The export the header row was recognised as (${KNOWN_FORMATS.map((format) => format.name).join(', ')}), or custom.`, example: 'getwaitlist' }),
    rows: z.number().int().meta({ description: 'Data rows read.' }),
    created: z.number().int().meta({ description: 'New entries (to be) created.' }),
    confirmed: z.number().int().meta({ description: 'Of those, joining the line.' }),
    pending: z.number().int().meta({ description: 'Of those, waiting for their confirmation.' }),
    existing: z.number().int().meta({ description: 'Rows whose address the product and mode has already: left as they are.' }),
    suppressed: z.number().int().meta({ description: 'Rows whose address was deleted or unsubscribed before: skipped.' }),
    invalid: z.number().int().meta({ description: 'Bad rows: skipped, each in problems.' }),
    referralCodesKept: z.number().int().meta({ description: 'Created entries that keep the referral code of the file.' }),
    referralsLinked: z.number().int().meta({ description: 'Created entries linked to their referrer.' }),
    lines: z.array(ROW_OUTCOME).meta({ description: `What happens to each row, in file order: the first ${REPORT_LIST_LIMIT}.` }),
    problems: z.array(PROBLEM).meta({ description: `The bad rows, in file order: the first ${REPORT_LIST_LIMIT}.` }),
    checksum: z.string().meta({
      description: 'A SHA-256 (hex) of the rows read and of the mapping and state that read them: pass it as checksum to the import, which then writes these rows, read this way, or nothing.',
      example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    }),
  })
  .meta({ id: 'ImportReport', description: 'What an import did, or with dryRun would do: counts over every row, and the first 1000 rows and bad rows.' });
export type ImportReport = z.infer<typeof IMPORT_REPORT>;
