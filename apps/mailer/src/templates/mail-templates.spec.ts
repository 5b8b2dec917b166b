import { MailTemplate, STARTERS, translator } from '@app/shared';
import { DataSource } from 'typeorm';
import { MailTemplates } from './mail-templates';

/** A DataSource that knows one template row, for every product asked; counts the statements asking which applies, and how often its whole row is read. */
function databaseWith(row: MailTemplate) {
  const reads = { rows: 0, asks: 0 };
  // Which template applies is asked as a prepared statement, on the DataSource's pg pool, for each ask of a batch by its number.
  const db = {
    createQueryRunner: () => undefined,
    driver: {
      master: {
        query: async ({ values: [products] }: { values: string[][] }) => (
          reads.asks++, { rows: products.map((_, i) => ({ i: String(i + 1), id: row.id, updated_at: row.updatedAt })) }
        ),
      },
    },
    getRepository: () => ({ findOneBy: async () => (reads.rows++, row) }),
  } as unknown as DataSource;
  return { db, reads };
}

const VALUES = { product_name: 'Acme', confirm_url: 'https://w.example/confirm/t', kept_for: '3 days', unsubscribe_url: 'https://w.example/unsubscribe/u' };
const LINKS = { unsubscribe: 'https://w.example/unsubscribe/u', myData: null };
const fallback = () => ({ subject: 'default', text: 'default', html: 'default' });

describe(MailTemplates.name, () => {
  it('compile a template once per change, not once per mail', async () => {
    const row = Object.assign(new MailTemplate(), { id: 'tpl_1', productId: 'prod_1', kind: 'confirmation', locale: null, ...STARTERS.confirmation, updatedAt: new Date(1_000) });
    const { db, reads } = databaseWith(row);
    const templates = new MailTemplates(db);
    for (let i = 0; i < 3; i++) await templates.mail('prod_1', 'confirmation', translator('en'), () => VALUES, LINKS, fallback);
    expect(reads.rows).toBe(1);

    row.updatedAt = new Date(2_000);
    row.subject = 'Changed for {{ product_name }}';
    const mail = await templates.mail('prod_1', 'confirmation', translator('en'), () => VALUES, LINKS, fallback);
    expect([reads.rows, mail.subject]).toEqual([2, 'Changed for Acme']);
    expect(mail.text).toMatch(/https:\/\/w\.example\/confirm\/t[\s\S]*\n\nUnsubscribe: https:\/\/w\.example\/unsubscribe\/u\n$/);
  });

  it('send the default mail for a template saved before a rule it breaks, compiled once', async () => {
    const row = Object.assign(new MailTemplate(), { id: 'tpl_2', productId: 'prod_1', kind: 'confirmation', locale: null, ...STARTERS.confirmation, updatedAt: new Date(1_000) });
    row.html += '<style>a { display: none }</style>';
    const { db, reads } = databaseWith(row);
    const templates = new MailTemplates(db);
    for (let i = 0; i < 2; i++) expect(await templates.mail('prod_1', 'confirmation', translator('en'), () => VALUES, LINKS, fallback)).toEqual(fallback());
    expect(reads.rows).toBe(1);
  });

  it('ask which template applies once for the mails prepared at the same time', async () => {
    const row = Object.assign(new MailTemplate(), { id: 'tpl_3', productId: 'prod_1', kind: 'confirmation', locale: null, ...STARTERS.confirmation, updatedAt: new Date(1_000) });
    const { db, reads } = databaseWith(row);
    const templates = new MailTemplates(db);
    const mails = await Promise.all(['prod_1', 'prod_2', 'prod_1'].map((product) => templates.mail(product, 'confirmation', translator('en'), () => VALUES, LINKS, fallback)));
    expect(mails.map((mail) => mail.subject)).toEqual(mails.map(() => expect.stringContaining('Acme')));
    expect(reads.asks).toBe(1);
  });
});
