import { EntryRecord, InviteCode } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { bearer, confirmPath, productWith, signUp } from './support/flows';
import { codeIn } from './support/invitations';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';

const FORM = 'application/x-www-form-urlencoded';

describe('languages: the person’s own, for its pages and mails', () => {
  let stack: Stack;
  let product: Product;

  beforeAll(async () => {
    stack = await Stack.start({ env: { RATE_LIMIT_SIGNUP: '10000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '100/1h', PENDING_ENTRY_TTL: '3d' } });
    product = await stack.createProduct({ name: 'Acme' });
  });
  afterAll(() => stack.stop());

  const pk = () => product.keys.test.publishable;
  const entryOf = (email: string) => stack.db.getRepository(EntryRecord).findOneByOrFail({ email });
  const get = (url: string, headers: Record<string, string> = {}) => stack.request({ method: 'GET', url, headers });
  const signUpWith = (body: Record<string, unknown>) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk(), ...body } });
  const postForm = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    stack.request({ method: 'POST', url, headers: { 'content-type': FORM, ...headers }, payload: form(fields) });
  const confirm = async (email: string) => {
    const path = await confirmPath(stack, email);
    expect((await stack.request({ method: 'POST', url: path })).status).toBe(303);
    return path;
  };

  it('a sign-up with locale de-AT gets a German mail and German pages, with German plurals, and keeps its language when it signs up again', async () => {
    expect((await signUpWith({ email: 'anna@example.com', locale: 'de-AT' })).status).toBe(202);
    const mail = await stack.mail.waitFor('anna@example.com');
    expect(mail.subject).toBe('Bestätigen Sie Ihre Adresse für die Warteliste von Acme');
    expect(mail.text).toContain('Ohne Bestätigung wird die Adresse in 3 Tagen entfernt.');
    expect(mail.html).toContain('>Abmelden</a>');

    // Known already: another language asked for changes nothing, the mail again is German.
    expect((await signUpWith({ email: 'anna@example.com', locale: 'fr' })).status).toBe(202);
    expect((await stack.mail.waitFor('anna@example.com', 2)).subject).toBe('Bestätigen Sie Ihre Adresse für die Warteliste von Acme');
    expect((await entryOf('anna@example.com')).locale).toBe('de');

    const path = await confirmPath(stack, 'anna@example.com', 2);
    const pending = (await get(path)).text;
    expect(pending).toContain('<html lang="de">');
    expect(pending).toContain('<button type="submit">Meine Adresse bestätigen</button>');
    expect((await stack.request({ method: 'POST', url: path })).status).toBe(303);
    const anna = await entryOf('anna@example.com');

    // Two friends through her link: the status page counts them in German.
    for (const friend of ['ben@example.com', 'carl@example.com']) {
      await signUp(stack, pk(), friend, anna.referralCode!);
      await confirm(friend);
    }
    const status = (await get(path)).text;
    expect(status).toContain("<h1>Sie stehen auf der Warteliste von Acme</h1>");
    expect(status).toContain('2 Personen haben Sie um 2 Plätze nach vorn gebracht.');
    expect(status).toContain('Geschätzte Wartezeit: noch nicht genug Daten');

    const unsubscribe = new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    expect((await get(unsubscribe)).text).toContain('<h1>Die Warteliste von Acme verlassen?</h1>');
  });

  it('the hosted form speaks the browser’s language; its sign-up takes it for the mail and the pages that follow', async () => {
    const browser = { 'accept-language': 'fr-CH, fr;q=0.9, de;q=0.5' };
    const page = (await get(`/w/${pk()}`, browser)).text;
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain('<button type="submit">Rejoindre la liste d’attente</button>');
    const posted = await postForm('/public/v1/signups', { key: pk(), email: 'chloe@example.com' }, browser);
    expect(posted.status).toBe(303);
    expect((await get(posted.headers.location as string, browser)).text).toContain('<h1>Consultez votre boîte de réception</h1>');
    const mail = await stack.mail.waitFor('chloe@example.com');
    expect(mail.subject).toBe('Confirmez votre adresse pour la liste d’attente de Acme');
    expect(mail.text).toContain('supprimée dans 3 jours');
    expect((await entryOf('chloe@example.com')).locale).toBe('fr');
  });

  it('without a language asked for, the product’s default; without that, English exactly as before', async () => {
    const spanish = await productWith(stack, { defaultLocale: 'es' });
    const key = spanish.keys.test.publishable;
    expect((await get(`/w/${key}`, { 'accept-language': 'ja, ko;q=0.8' })).text).toContain('<html lang="es">');
    await signUp(stack, key, 'diego@example.com');
    expect((await stack.mail.waitFor('diego@example.com')).subject).toBe('Confirma tu dirección para la lista de espera de Acme');

    await signUp(stack, pk(), 'eve@example.com');
    const mail = await stack.mail.waitFor('eve@example.com');
    expect(mail.subject).toBe('Confirm your address for the Acme waitlist');
    expect(mail.text).toMatch(/^You asked to join the Acme waitlist\. Confirm your address to take your place in line:\n\n.+\n\nIf this was not you, ignore this mail: without confirmation the address is removed in 3 days\.\n\nUnsubscribe: .+\nSee or delete your data: .+\/my-data\n$/);
    const path = await confirm('eve@example.com');
    const status = (await get(path)).text;
    expect(status).toContain('<html lang="en">');
    expect(status).toContain("<h1>You're on the Acme waitlist</h1>\n<p>Your place in line:</p>");
    expect((await get(`/w/${pk()}`)).text).toContain('<h1>Join the Acme waitlist</h1>');
  });

  it('refuses a locale that is not a language the service speaks, naming the field', async () => {
    for (const locale of ['xx', 'de_AT', 'english', 5, '']) {
      const answer = await signUpWith({ email: 'nobody@example.com', locale });
      expect([answer.status, answer.json().error.code, answer.json().error.param]).toEqual([400, 'invalid_request', 'locale']);
    }
    expect(await stack.db.getRepository(EntryRecord).countBy({ email: 'nobody@example.com' })).toBe(0);
  });

  it('the status page’s switch changes the language of the pages and mails from then on; the invitation and its page follow it, dates in the language', async () => {
    await signUpWith({ email: 'frank@example.com', locale: 'de' });
    const path = await confirm('frank@example.com');
    expect((await get(path)).text).toContain('<option value="de" lang="de" selected>Deutsch</option>');
    const switched = await postForm(`${path}/language`, { locale: 'es' });
    expect([switched.status, switched.headers.location]).toEqual([303, path]);
    const page = (await get(path)).text;
    expect(page).toContain('<html lang="es">');
    expect(page).toContain('<h1>Estás en la lista de espera de Acme</h1>');
    expect((await postForm(`${path}/language`, { locale: 'klingon' })).status).toBe(400);

    const frank = await entryOf('frank@example.com');
    expect((await stack.request({ method: 'POST', url: `/api/v1/entries/${frank.id}/invite`, headers: bearer(product.keys.test.secret) })).status).toBe(200);
    const invitation = await stack.mail.waitFor('frank@example.com', 2);
    expect(invitation.subject).toBe('Estás invitado a Acme');
    expect(invitation.text).toContain('El enlace es solo para ti y funciona durante 30 días.');
    const code = await stack.db.getRepository(InviteCode).findOneByOrFail({ entryId: frank.id });
    const until = new Intl.DateTimeFormat('es', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(code.expiresAt);
    const hosted = (await get(`/invitation?invite=${codeIn(invitation)}`)).text;
    expect(hosted).toContain('<html lang="es">');
    expect(hosted).toContain(`Es válida hasta el ${until} UTC.`);
    expect(until).toMatch(/^\d{1,2} de [a-z]+ de \d{4}/);
  });

  it('the profile route answers the language; the Entry object keeps its fields; the dashboard shows and exports it, and sets the default', async () => {
    const anna = await entryOf('anna@example.com');
    const profile = await stack.request({ method: 'GET', url: `/api/v1/entries/${anna.id}/profile`, headers: bearer(product.keys.test.secret) });
    expect([profile.status, profile.json()]).toEqual([200, { id: anna.id, locale: 'de', answers: {}, attribution: {} }]);
    expect((await stack.request({ method: 'GET', url: `/api/v1/entries/${anna.id}/profile`, headers: bearer(product.keys.live.secret) })).status).toBe(404);
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries/ent_unknown/profile', headers: bearer(product.keys.test.secret) })).status).toBe(404);
    expect((await stack.request({ method: 'GET', url: `/api/v1/entries/${anna.id}`, headers: bearer(product.keys.test.secret) })).json()).not.toHaveProperty('locale');

    await stack.api.get(DashboardAuthService).createUser('lang-team@example.com', PASSWORD, product.id);
    const { cookie, csrf } = await signIn(stack, 'lang-team@example.com');
    const base = `/dashboard/${product.id}/test`;
    expect((await get(`${base}/entries/${anna.id}`, { cookie })).text).toContain('<tr><th>Language</th><td>Deutsch (de)</td></tr>');
    const csv = (await get(`${base}/entries.csv`, { cookie })).text.trim().split('\r\n');
    expect(csv[0]).toContain(',referrals,locale,');
    // The language, then attribution and answers, which this sign-up left empty.
    expect(csv.find((line) => line.includes('anna@example.com'))!.endsWith(',de,,,,,,,,')).toBe(true);

    const saved = await postForm(`${base}/settings/languages`, { _csrf: csrf, defaultLocale: 'fr' }, { cookie });
    expect(saved.status).toBe(303);
    expect((await stack.api.get(ProductsService).find(product.id))!.defaultLocale).toBe('fr');
    expect((await get(`${base}/settings/languages`, { cookie })).text).toContain('<option value="fr" selected>Français</option>');
    await signUp(stack, pk(), 'gina@example.com');
    expect((await stack.mail.waitFor('gina@example.com')).subject).toBe('Confirmez votre adresse pour la liste d’attente de Acme');
  });
});
