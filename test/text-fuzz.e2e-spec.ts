import { ATTRIBUTION_FIELDS, isStorableText, textLength, unstorableTextAt } from '@app/shared';
import fc from 'fast-check';
import { QUESTIONS_FORM } from '../apps/api/src/products/questions-form';
import { productWith } from './support/flows';
import { Product, Stack } from './support/stack';

/**
 * Arbitrary Unicode at every text field a person's browser or a product's script sends: the public
 * sign-up (JSON and HTML form), the hosted form's page, the script-tag form's status route and the
 * my-data form. Never a 5xx, and a refused request writes nothing.
 *
 * In `npm test` each property runs FUZZ_RUNS times (40) from FUZZ_SEED (38), so that a failure repeats;
 * a longer hunt: FUZZ_RUNS=2000 FUZZ_SEED=$RANDOM npx jest test/text-fuzz.e2e-spec.ts (bench/README.md).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 38);
// Each run is a request: a failure is reported as found, not shrunk for minutes.
const settings = { numRuns: RUNS, seed: SEED, endOnFailure: true };

/** What a careless client or a hostile one sends: NUL, halves of emoji, ZWJ sequences, RTL marks, combining marks, form syntax. */
const SPECIAL = fc.constantFrom('\u0000', '\ud83d', '\ude00', '😀', '👩‍👩‍👧‍👦', '🏳️‍🌈', '\u200f', '\u202e', 'e\u0301', '\ufeff', '\r\n', '\u2028', '\u007f', '%', '&', '=', '+', '[', ']', '"', '\\');
const UNIT = fc.oneof(SPECIAL, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }));
const SHORT = fc.string({ unit: UNIT, maxLength: 30 });
/** 10,000 UTF-16 units of a short text repeated, cut wherever the count falls (a pair split included). */
const LONG = SHORT.map((text) => (text || 'x').repeat(Math.ceil(10_000 / (text.length || 1))).slice(0, 10_000));
const TEXT = fc.oneof({ weight: 6, arbitrary: SHORT }, { weight: 1, arbitrary: LONG });
/** A field left out, or any text. */
const FIELD = fc.option(TEXT, { nil: undefined, freq: 3 });
/** A field that refuses the whole request when it is bad (the address, the language, the watch): mostly left out, so that the rest is read too. */
const RARE = fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: TEXT });
/** One of a choice question's choices, or any text. */
const CHOICE = fc.oneof(fc.constantFrom(undefined, 'A', '😀 B', 'שלום'), TEXT);
/** An answer: any refused answer refuses the sign-up, so each is mostly left out, for the others to be read too. */
const answer = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** UTF-8 as a careless encoder writes it: a lone surrogate as its own three bytes (WTF-8), which no decoder reads as text. */
function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const point = text.codePointAt(i)!;
    if (point > 0xffff) i++;
    if (point >= 0xd800 && point <= 0xdfff) bytes.push(0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
    else bytes.push(...Buffer.from(String.fromCodePoint(point)));
  }
  return Buffer.from(bytes);
}
const formPart = (text: string) => [...wtf8(text)].map((byte) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`)).join('');
const formBody = (fields: Record<string, string | undefined>) =>
  Object.entries(fields)
    .filter((field): field is [string, string] => field[1] !== undefined)
    .map(([name, value]) => `${formPart(name)}=${formPart(value)}`)
    .join('&');

const QUESTIONS = ['short | short_text | optional | Short', 'long | long_text | optional | Long', 'pick | single_choice | optional | Pick | A; 😀 B; שלום', 'many | multiple_choice | optional | Many | X; Y', 'ok | checkbox | optional | OK'].join('\n');

describe('arbitrary text at the public forms', () => {
  let stack: Stack;
  let product: Product;
  let pk: string;
  let serial = 0;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { RATE_LIMIT_SIGNUP: '1000000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '1000000/1h' } });
    product = await productWith(stack, { questions: QUESTIONS_FORM.parse(QUESTIONS) });
    pk = product.keys.test.publishable;
  });
  afterAll(() => stack?.stop());

  /** A fresh address each run, so that each sign-up is a new entry or nothing. */
  const freshEmail = () => `fuzz-${++serial}@example.com`;

  /** Everything a request to these routes could write. */
  async function counts(): Promise<unknown> {
    const [row] = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM entries) AS entries, (SELECT count(*)::int FROM entry_details) AS details,
              (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM outbox) AS outbox, (SELECT count(*)::int FROM entry_tokens) AS tokens`,
    );
    return row;
  }

  /** The answer is no 5xx; a refusal (4xx) changed nothing. */
  async function expectAnsweredWithoutHarm(send: () => Promise<{ status: number; text: string }>, accepted: number[]): Promise<number> {
    const before = await counts();
    const response = await send();
    if (![...accepted, 400, 401, 404].includes(response.status)) throw new Error(`answered ${response.status}: ${response.text.slice(0, 500)}`);
    if (!accepted.includes(response.status)) expect(await counts()).toEqual(before);
    return response.status;
  }

  /** What a sign-up left in entry_details is storable text within its bounds. */
  async function expectStoredDetails(email: string): Promise<void> {
    const rows: { answers: Record<string, unknown> | null; attribution: Record<string, string> | null }[] = await stack.db.query(
      'SELECT d.answers, d.attribution FROM entry_details d JOIN entries e ON e.id = d.entry_id WHERE e.email = $1',
      [email],
    );
    for (const { answers, attribution } of rows) {
      expect(unstorableTextAt({ answers, attribution })).toBeUndefined();
      for (const [field, value] of Object.entries(attribution ?? {})) {
        expect(ATTRIBUTION_FIELDS).toContain(field);
        expect(textLength(value)).toBeLessThanOrEqual(field.startsWith('utm_') ? 200 : 2000);
      }
    }
  }

  const ANSWERS = fc.record({ short: answer(TEXT), long: answer(TEXT), pick: answer(CHOICE), many: answer(fc.array(fc.oneof(fc.constantFrom('X', 'Y'), TEXT), { maxLength: 3 })), ok: answer(fc.boolean()) }, { requiredKeys: [] });
  const ATTRIBUTION = fc.record(Object.fromEntries(ATTRIBUTION_FIELDS.map((field) => [field, FIELD])), { requiredKeys: [] });

  it('the JSON sign-up: any text in any field is taken or refused, never a 5xx, never half-written', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ email: RARE, ref: FIELD, locale: RARE, watch: RARE, answers: ANSWERS, attribution: ATTRIBUTION, strangeKey: RARE }), async (fields) => {
        const email = fields.email ?? freshEmail();
        const { strangeKey, ...body } = fields;
        if (strangeKey !== undefined) (body.answers as Record<string, unknown>)[strangeKey] = 'x';
        const status = await expectAnsweredWithoutHarm(() => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, ...body, email } }), [202]);
        if (status === 202 && isStorableText(email)) await expectStoredDetails(email.trim().toLowerCase());
      }),
      settings,
    );
  });

  it('the HTML form sign-up: any bytes in any field, never a 5xx, never half-written', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ email: RARE, ref: FIELD, locale: RARE, watch: RARE, short: answer(TEXT), long: answer(TEXT), pick: answer(CHOICE), many: answer(TEXT), ok: FIELD, attribution: ATTRIBUTION, strange: fc.tuple(TEXT, TEXT) }),
        async ({ email = freshEmail(), ref, locale, watch, short, long, pick, many, ok, attribution, strange }) => {
          const payload = formBody({
            key: pk,
            email,
            ref,
            locale,
            watch,
            'answers[short]': short,
            'answers[long]': long,
            'answers[pick]': pick,
            'answers[many]': many,
            'answers[ok]': ok,
            ...attribution,
            [strange[0]]: strange[1],
          });
          const send = () => stack.request({ method: 'POST', url: '/public/v1/signups', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
          const status = await expectAnsweredWithoutHarm(send, [303]);
          if (status === 303 && isStorableText(email)) await expectStoredDetails(email.trim().toLowerCase());
        },
      ),
      settings,
    );
  });

  it('the hosted form: any text in its query (UTM, ref, language), never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ utm_source: FIELD, utm_campaign: FIELD, ref: FIELD, lang: FIELD, other: FIELD }, { requiredKeys: [] }), async (query) => {
        const url = `/w/${pk}?${formBody(query)}`;
        await expectAnsweredWithoutHarm(() => stack.request({ method: 'GET', url, headers: { referer: `https://acme.example/${formPart(query.other ?? '')}` } }), [200]);
      }),
      settings,
    );
  });

  it('the script-tag form’s status route: any text as key and watch, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ key: fc.oneof(fc.constant(pk), TEXT), watch: FIELD }), async (body) => {
        await expectAnsweredWithoutHarm(() => stack.request({ method: 'POST', url: '/public/v1/signups/status', body }), [200]);
      }),
      settings,
    );
  });

  it('the my-data form: any text as the address, by form or JSON, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(TEXT, fc.boolean(), async (email, asForm) => {
        const send = () =>
          asForm
            ? stack.request({ method: 'POST', url: `/w/${pk}/my-data`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: formBody({ email }) })
            : stack.request({ method: 'POST', url: `/w/${pk}/my-data`, body: { email } });
        await expectAnsweredWithoutHarm(send, [303]);
      }),
      settings,
    );
  });
});
