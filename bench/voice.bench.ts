import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { Pool } from 'undici';
import { EMBED_SCRIPT } from '../apps/api/src/embed/embed.controller';
import { AppProcess } from '../test/support/processes';
import { Stack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { alternate, atLeast, atMost, Measure, perSecond, report } from './support/harness';

const SIGNUPS = Number(process.env.BENCH_SIGNUPS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 300;
/** Requests in flight at once, each on its own connection, as many browsers posting the form. */
const CONCURRENCY = 50;
const ROOT = join(__dirname, '..');
/** Limits high enough that no sign-up of the run is refused, while both limiters still count every one. */
const LIMITS = { RATE_LIMIT_SIGNUP: '10000000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '5/1h' };

/** A product's own confirmation mail, in German, as a team would write it. */
const TEMPLATE = {
  subject: 'Willkommen bei {{ product_name }}: bitte bestätigen',
  text: 'Hallo!\n\nBitte bestätigen Sie Ihre Adresse für {{ product_name }}:\n{{ confirm_url }}\n\nOhne Bestätigung löschen wir die Adresse in {{ kept_for }}.',
  html: '<h1>Willkommen bei {{ product_name }}</h1><p>Bitte bestätigen Sie Ihre Adresse:</p><p><a href="{{ confirm_url }}">Adresse bestätigen</a></p><p>Ohne Bestätigung löschen wir die Adresse in {{ kept_for }}.</p>',
};
const QUESTIONS = [
  { key: 'company', type: 'short_text', required: true, label: 'Firma' },
  { key: 'role', type: 'single_choice', required: true, label: 'Rolle', choices: ['Gründerin', 'Entwickler', 'Design'] },
  { key: 'tools', type: 'multiple_choice', required: false, label: 'Werkzeuge', choices: ['Slack', 'Linear', 'Jira'] },
  { key: 'consent', type: 'checkbox', required: true, label: 'Ich möchte zum Start eine E-Mail bekommen' },
];
const ANSWERS = { company: 'Initech', role: 'Entwickler', tools: ['Slack', 'Linear'], consent: true };

interface Side {
  name: 'default' | 'voiced';
  publishableKey: string;
  body: (email: string) => Record<string, unknown>;
  subject: string;
}

/**
 * Sign-ups per second of a product that speaks in its own voice (its own confirmation template in
 * German, four questions answered, the person's language German) against a product that leaves all
 * of it off, each with its confirmation mail accepted by the SMTP sink, in the same run: what the
 * template, the answers and the language cost a sign-up. The template is compiled once per change
 * (the mailer's cache), so the voiced side pays one lookup per mail, not a compile. Also reports the
 * size of /embed.js gzipped, the script-tag form's weight on a customer's page.
 */
describe('sign-ups in the product’s voice against the default', () => {
  let stack: Stack;
  let api: AppProcess;
  let mailer: AppProcess;
  let round = 0;
  const sides = {} as Record<Side['name'], Side>;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [], env: LIMITS });
    const env = { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, QUEUE_PREFIX: stack.config.QUEUE_PREFIX };
    const cli = (...args: string[]) => JSON.parse(execFileSync('node', ['dist/apps/api/src/cli/main.js', ...args, '--json'], { cwd: ROOT, env }).toString());
    const plain = cli('products', 'create', '--name', 'Plain');
    const voiced = cli('products', 'create', '--name', 'Stimme');
    cli('products', 'update', '--product', voiced.id, '--default-locale', 'de');
    // As the dashboard's settings and template pages save them.
    await stack.db.query('UPDATE products SET questions = $1 WHERE id = $2', [JSON.stringify(QUESTIONS), voiced.id]);
    await stack.db.query(`INSERT INTO mail_templates (id, product_id, kind, locale, subject, text, html, updated_at) VALUES ('tpl_bench', $1, 'confirmation', 'de', $2, $3, $4, now())`, [
      voiced.id,
      TEMPLATE.subject,
      TEMPLATE.text,
      TEMPLATE.html,
    ]);
    sides.default = { name: 'default', publishableKey: plain.keys.test.publishable, body: (email) => ({ email }), subject: 'Confirm your address for the Plain waitlist' };
    sides.voiced = {
      name: 'voiced',
      publishableKey: voiced.keys.test.publishable,
      body: (email) => ({ email, locale: 'de', answers: ANSWERS, attribution: { utm_source: 'newsletter', utm_campaign: 'launch', landing_page: 'https://stimme.example/?utm_source=newsletter' } }),
      subject: 'Willkommen bei Stimme: bitte bestätigen',
    };
    api = await AppProcess.start('api', stack.config, { env: LIMITS });
    mailer = await AppProcess.start('mailer', stack.config, { env: LIMITS });
  });
  afterAll(async () => {
    await api?.stop();
    await mailer?.stop();
    await stack?.stop();
  });

  /** Signs up `count` new addresses on the side's product; resolves when the sink has accepted each one's mail, checking that it is the side's. */
  async function signUps(side: Side, count: number): Promise<Measure> {
    const prefix = `${side.name}-r${round++}-`;
    const mailed = new Set<string>();
    const subjects = new Set<string>();
    stack.mail.mails.length = 0;
    stack.mail.afterAccept = (mail) => {
      if (!mail.to.startsWith(prefix)) return;
      mailed.add(mail.to);
      subjects.add(mail.subject);
    };
    const pool = new Pool(api.url, { connections: CONCURRENCY });
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < count; i = next++) {
          const response = await pool.request({
            method: 'POST',
            path: '/public/v1/signups',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ key: side.publishableKey, ...side.body(`${prefix}${i}@example.com`) }),
          });
          const body = await response.body.text();
          if (response.statusCode !== 202) throw new Error(`A sign-up answered ${response.statusCode}: ${body}`);
        }
      }),
    );
    await waitFor(() => mailed.size === count, `${count} confirmation mails`, { timeoutMs: 600_000, intervalMs: 5 });
    const ms = performance.now() - start;
    await pool.close();
    expect([...subjects]).toEqual([side.subject]);
    process.stdout.write(`${side.name.padEnd(7)} ${count} sign-ups mailed in ${(ms / 1000).toFixed(2)} s, ${perSecond((count / ms) * 1000)}\n`);
    return { kind: 'rate', perSecond: (count / ms) * 1000 };
  }

  it(`reports ${SIGNUPS.toLocaleString('en-US')} sign-ups per second with a template, four answers and German, against the default`, async () => {
    await signUps(sides.default, WARM_UP);
    await signUps(sides.voiced, WARM_UP);
    const result = await alternate(
      ROUNDS,
      () => signUps(sides.default, SIGNUPS),
      () => signUps(sides.voiced, SIGNUPS),
    );
    // Every voiced sign-up kept its answers and its language.
    const [kept]: { entries: number; details: number; german: number }[] = await stack.db.query(
      `SELECT count(*)::int AS entries, count(d.entry_id)::int AS details, count(*) FILTER (WHERE e.locale = 'de')::int AS german
       FROM entries e JOIN api_keys k ON k.product_id = e.product_id AND k.mode = e.mode AND k.hint = $1 LEFT JOIN entry_details d ON d.entry_id = e.id`,
      [sides.voiced.publishableKey],
    );
    expect(kept).toEqual({ entries: WARM_UP + ROUNDS * SIGNUPS, details: WARM_UP + ROUNDS * SIGNUPS, german: WARM_UP + ROUNDS * SIGNUPS });
    report({
      work: `public sign-up with its confirmation mail, a custom German template, four answers and locale de, ${SIGNUPS.toLocaleString('en-US')} sign-ups, ${CONCURRENCY} connections`,
      baseline: 'the same on a product with none of them (default mail, no questions, English)',
      baselineValue: perSecond(result.baseline),
      serviceValue: perSecond(result.service),
      ...atLeast(result.ratio, 0.95),
    });
    const gzipped = gzipSync(EMBED_SCRIPT, { level: 9 }).length;
    report({
      work: 'the script-tag form, /embed.js, as served gzipped',
      baseline: 'the issue’s bound of 12 KB',
      baselineValue: '12.0 KB',
      serviceValue: `${(gzipped / 1024).toFixed(1)} KB`,
      ...atMost(gzipped / (12 * 1024), 1),
    });
  });
});
