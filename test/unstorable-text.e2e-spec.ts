import { EntryRecord } from '@app/shared';
import { parse } from 'parse5';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ReleasesService } from '../apps/api/src/releases/releases.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { DashboardRoute, dashboardRoutes, form, PASSWORD, signIn } from './support/dashboard';
import { SETTINGS_SECTIONS } from '../apps/api/src/dashboard/settings/settings-sections';
import { bearer, joinLine } from './support/flows';
import { Product, Stack } from './support/stack';

/** The half of an emoji that PostgreSQL's jsonb refuses alone and text turns into U+FFFD. */
const LONE = '\ud83d';

/**
 * Text that PostgreSQL cannot store as sent (a NUL, a lone surrogate) is refused naming its field, or,
 * in a sign-up's attribution, dropped; never a 500, never half-written.
 */
describe('unstorable text', () => {
  let stack: Stack;
  let product: Product;
  let session: { cookie: string; csrf: string };

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    product = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, product.id);
    session = await signIn(stack, 'ada@example.com');
    const question = { 'questions.0.key': 'company', 'questions.0.type': 'short_text', 'questions.0.need': 'optional', 'questions.0.label': 'Company name' };
    const saved = await dashboardPost(`/dashboard/${product.id}/live/settings/questions`, question);
    expect(saved.status).toBe(303);
  });
  afterAll(() => stack?.stop());

  function dashboardPost(url: string, fields: Record<string, string>) {
    return stack.request({ method: 'POST', url, headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ ...fields, _csrf: session.csrf }) });
  }
  const signUp = (body: Record<string, unknown>) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: product.keys.live.publishable, ...body } });
  async function attributionOf(email: string) {
    const entry = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email });
    return (await stack.request({ method: 'GET', url: `/api/v1/entries/${entry.id}/profile`, headers: bearer(product.keys.live.secret) })).json().attribution;
  }

  it('a UTM value of emoji is cut by code points, never inside one', async () => {
    const campaign = `x${'😀'.repeat(250)}`;
    const response = await signUp({ email: 'emoji@example.com', attribution: { utm_campaign: campaign, utm_source: `${'😀'.repeat(150)}` } });
    expect(response.status).toBe(202);
    expect(await attributionOf('emoji@example.com')).toEqual({ utm_campaign: `x${'😀'.repeat(199)}`, utm_source: '😀'.repeat(150) });
  });

  it('a lone surrogate or a NUL in attribution is dropped like any other bad character', async () => {
    const response = await signUp({
      email: 'lone-utm@example.com',
      attribution: { utm_source: `news${LONE}letter`, utm_medium: `so\u0000cial`, landing_page: `https://acme.example/join${LONE}?utm_source=x` },
    });
    expect(response.status).toBe(202);
    expect(await attributionOf('lone-utm@example.com')).toEqual({ utm_source: 'newsletter', utm_medium: 'social', landing_page: 'https://acme.example/join?utm_source=x' });
  });

  it('a lone surrogate in an answer is 400 naming it, and nothing is written', async () => {
    const response = await signUp({ email: 'lone-answer@example.com', answers: { company: `Init${LONE}ech` } });
    expect([response.status, response.json().error]).toEqual([400, { code: 'invalid_request', message: expect.stringMatching(/\S/), param: 'answers.company' }]);
    expect(await stack.db.getRepository(EntryRecord).countBy({ email: 'lone-answer@example.com' })).toBe(0);
  });

  it('an invitation code holding a NUL or half a character is one that is not valid, to verify and to redeem (SPEC.md)', async () => {
    for (const token of [`code\u0000x`, `code${LONE}x`]) {
      for (const route of ['verify', 'redeem']) {
        const response = await stack.request({ method: 'POST', url: `/api/v1/invites/${route}`, headers: bearer(product.keys.test.secret), body: { token } });
        expect([route, response.status, response.json()]).toEqual([route, 200, { valid: false }]);
      }
    }
  });

  it('an import with a NUL in each kind of cell answers its dry run and its import, never a 5xx', async () => {
    const header = 'email,created_at,referral_code,referred_by,referral_count,status,id';
    const mapping = { email: 'email', created_at: 'createdAt', referral_code: 'referralCode', referred_by: 'referredBy', referral_count: 'referralCount', status: 'state', id: 'id' };
    const cells = ['a\u0000@example.com', '2026-01-01\u0000', 'code\u0000x', 'ref\u0000x', '1\u0000', 'confirmed\u0000', 'id\u0000x'];
    const rows = cells.map((_, at) => ['row@example.com', '2026-01-01', 'codex1234', '', '0', 'confirmed', `id${at}`].map((cell, i) => (i === at ? cells[i] : cell.replace('row', `row${at}`))).join(','));
    for (const dryRun of [true, false]) {
      const response = await stack.request({
        method: 'POST',
        url: `/api/v1/entries/import?dryRun=${dryRun}&mapping=${encodeURIComponent(JSON.stringify(mapping))}`,
        headers: { ...bearer(product.keys.test.secret), 'content-type': 'text/csv' },
        payload: [header, ...rows].join('\n'),
      });
      expect([dryRun, response.status, response.text]).toEqual([dryRun, 200, expect.anything()]);
    }
  });

  it('a NUL in a mail template is refused on the editor, naming the part, and nothing is saved', async () => {
    const template = { subject: 'Hello', text: 'Confirm: {{ confirm_url }}\u0000', html: '<p><a href="{{ confirm_url }}">Confirm</a></p>' };
    const response = await dashboardPost(`/dashboard/${product.id}/live/templates/confirmation/all`, template);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/role="alert"[^>]*>[^<]*text/i);
    expect(await stack.db.query('SELECT id FROM mail_templates WHERE product_id = $1', [product.id])).toEqual([]);
  });
});

interface PageForm {
  /** Where its fields go: its action, its buttons' formaction, the live preview its script posts them to. */
  actions: string[];
  /** Every field as the page fills it: inputs, textareas, selects (their chosen option), ticked boxes. */
  fields: Record<string, string>;
  /** The fields a person types text into or a page carries text in: all but buttons, boxes, selects and the CSRF token. */
  textFields: string[];
}

type Node = { nodeName: string; attrs?: { name: string; value: string }[]; childNodes?: Node[]; value?: string; content?: Node };
const attr = (node: Node, name: string) => node.attrs?.find((a) => a.name === name)?.value;
const textOf = (node: Node): string => (node.nodeName === '#text' ? (node.value ?? '') : (node.childNodes ?? []).map(textOf).join(''));
function nodes(node: Node, name: string): Node[] {
  const children = [...(node.childNodes ?? []), ...(node.content ? [node.content] : [])];
  return [...(node.nodeName === name ? [node] : []), ...children.flatMap((child) => nodes(child, name))];
}

/** The POST forms of a page, read with a real HTML parser. */
function postForms(page: string): PageForm[] {
  return nodes(parse(page) as unknown as Node, 'form')
    .filter((form) => (attr(form, 'method') ?? '').toLowerCase() === 'post' && attr(form, 'enctype') !== 'multipart/form-data')
    .map((form) => {
      const fields: Record<string, string> = {};
      const textFields: string[] = [];
      for (const input of nodes(form, 'input')) {
        const name = attr(input, 'name');
        const type = (attr(input, 'type') ?? 'text').toLowerCase();
        if (!name || ['submit', 'button', 'file'].includes(type)) continue;
        if (['checkbox', 'radio'].includes(type)) {
          if (attr(input, 'checked') !== undefined) fields[name] = attr(input, 'value') ?? 'on';
          continue;
        }
        fields[name] = attr(input, 'value') ?? '';
        if (name !== '_csrf') textFields.push(name);
      }
      for (const area of nodes(form, 'textarea')) {
        const name = attr(area, 'name');
        if (name) (fields[name] = textOf(area)), textFields.push(name);
      }
      for (const select of nodes(form, 'select')) {
        const name = attr(select, 'name');
        const options = nodes(select, 'option');
        const chosen = options.find((option) => attr(option, 'selected') !== undefined) ?? options[0];
        if (name && chosen) fields[name] = attr(chosen, 'value') ?? textOf(chosen);
      }
      const buttons = nodes(form, 'button').flatMap((button) => attr(button, 'formaction') ?? []);
      const preview = attr(form, 'data-preview');
      const actions = [attr(form, 'action') ?? '', ...buttons, ...(preview ? [preview] : [])];
      return { actions, fields, textFields };
    });
}

/** The route pattern (as dashboardRoutes names it) that a form's action posts to. */
function routeOf(action: string, routes: DashboardRoute[]): string | undefined {
  const path = new URL(action, 'http://x').pathname.replace(/^\/dashboard\/?/, '').split('/');
  const route = routes.find((candidate) => {
    const parts = candidate.path.split('/').filter(Boolean);
    return candidate.method === 'POST' && parts.length === path.length && parts.every((part, i) => part.startsWith(':') || part === path[i]);
  });
  return route?.path;
}

/** What a page that asks before an action is opened with. */
const PAGE_QUERIES: Record<string, string> = { ':productId/:mode/entries/bulk': '?action=move-up&places=1&scope=filter&state=confirmed&utm_source=x' };

/**
 * Every form of every dashboard page, each text field in turn holding a NUL and then a lone surrogate
 * (posted as JSON, which can carry both): never a 5xx, and nothing changes, so that nothing unstorable
 * is kept (not even as the U+FFFD that PostgreSQL text would make of a lone surrogate).
 */
describe('every dashboard form, each text field holding unstorable text', () => {
  let stack: Stack;
  let product: Product;
  let session: { cookie: string; csrf: string };
  const values: Record<string, string> = {};

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    product = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, product.id);
    session = await signIn(stack, 'ada@example.com');
    const entry = await joinLine(stack, product.keys.test.publishable, 'grace@example.com');
    const endpoint = await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: 'https://93.184.216.34/hook' });
    const release = await stack.api.get(ReleasesService).create({ productId: product.id, mode: 'test' }, { count: 1, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true });
    const [key] = await stack.db.query("SELECT id FROM api_keys WHERE product_id = $1 AND mode = 'test' AND kind = 'secret'", [product.id]);
    Object.assign(values, { productId: product.id, mode: 'test', id: entry.id, endpointId: endpoint.id, releaseId: release.id, keyId: key.id, kind: 'confirmation', locale: 'all' });
  });
  afterAll(() => stack?.stop());

  /** Every table (but the sessions, where each page view leaves its notice), as one JSON text. */
  async function stored(): Promise<string> {
    const tables = [...new Set(stack.db.entityMetadatas.map((entity) => entity.tableName))].filter((table) => table !== 'dashboard_sessions').sort();
    const rows = await Promise.all(tables.map(async (table) => [table, (await stack.db.query(`SELECT coalesce(json_agg(t ORDER BY t::text), '[]'::json) AS rows FROM ${table} t`))[0].rows]));
    return JSON.stringify(rows);
  }

  it('refuses it, or stores nothing of it; every POST route holding text is reached by a form', async () => {
    const routes = dashboardRoutes();
    const sections = (route: DashboardRoute) => (route.path.includes(':section') ? SETTINGS_SECTIONS.map((section) => ({ ...route, path: route.path.replace(':section', section.path) })) : [route]);
    const pages = routes.filter((route) => route.method === 'GET' && !route.path.endsWith('.csv')).flatMap(sections).flatMap((route) => {
      const path = route.path.replace(/:(\w+)/g, (_, name: string) => values[name] ?? ':');
      return path.includes(':') ? [] : [`/dashboard${path ? `/${path}` : ''}${PAGE_QUERIES[route.path] ?? ''}`];
    });
    const reached = new Set<string>();
    for (const page of pages) {
      const response = await stack.request({ method: 'GET', url: page, headers: { cookie: session.cookie } });
      expect([page, response.status]).toEqual([page, 200]);
      for (const form of postForms(response.text)) for (const action of form.actions) {
        const route = routeOf(action, routes);
        expect([page, action, route]).toEqual([page, action, expect.any(String)]);
        reached.add(route!);
        for (const field of form.textFields) {
          for (const bad of ['\u0000', LONE]) {
            const before = await stored();
            const body = { ...form.fields, [field]: `${form.fields[field] ?? ''}x${bad}y`, _csrf: session.csrf };
            const answer = await stack.request({ method: 'POST', url: action, headers: { cookie: session.cookie }, body });
            const after = await stored();
            const where = `${page}: ${action} ${field} ${JSON.stringify(bad)}`;
            expect([where, answer.status < 500, after.includes('\\u0000') || after.includes('\ufffd')]).toEqual([where, true, false]);
            if (answer.status >= 400) expect([where, after]).toEqual([where, before]);
          }
        }
      }
    }
    // A route added later is walked through its form, or named here with the reason it is not.
    const notWalked = new Map([
      ['login', 'its page is for those not signed in, and it stores nothing: it looks the address up'],
      ['logout', 'a button'],
      [':productId/:mode/entries/import', 'a file upload: its cells are the import tests’ (test/imports*.e2e-spec.ts)'],
      [':productId/:mode/entries/import/staged', 'the forms of an upload held on the server, which this walk has none of: test/dashboard-import.e2e-spec.ts sends them such text'],
      [':productId/:mode/entries/:id/referrals/:referralId/:decision', 'buttons on an entry with referrals, which this walk has none of'],
      [':productId/:mode/webhooks/:endpointId/deliveries/:deliveryId/retry', 'a button on a delivery, which this walk has none of'],
      [':productId/:mode/sign-up-hooks/:hookId/revoke', 'a button on a sign-up hook, which this walk has none of'],
      [':productId/:mode/undeliverable/:id/clear', 'a button with no text field, on an undeliverable entry, which this walk has none of'],
    ]);
    const missing = routes.filter((route) => route.method === 'POST' && !reached.has(route.path) && !notWalked.has(route.path)).map((route) => route.path);
    expect(missing).toEqual([]);
  });
});
