import { Browser } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { launchBrowser } from './support/browser';
import { signUp } from './support/flows';
import { Product, Stack } from './support/stack';

/** What the test reads of the page, in chromium (the tests compile without the DOM's types). */
interface Shown {
  textContent: string | null;
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
  checkVisibility(options: Record<string, boolean>): boolean;
  contains(other: unknown): boolean;
}
interface InPage {
  getComputedStyle(element: Shown): { fontSize: string };
  document: { elementFromPoint(x: number, y: number): Shown | null };
}

const LINK = '<p><a href="{{ confirm_url }}">Confirm</a></p>\n';

/**
 * HTML parts that would swallow or hide what follows them, if the foot were simply written after them:
 * elements left open whose content is text to the end, or that capture or foster-parent what follows,
 * and wrappers whose styles hide or move their content.
 */
const HOSTILE: Record<string, string> = {
  'an open comment': `${LINK}<!-- `,
  'an open textarea': `${LINK}<textarea>`,
  'an open title': `${LINK}<title>`,
  'an open script': `${LINK}<script>`,
  'an open xmp': `${LINK}<xmp>`,
  'an open noscript': `${LINK}<noscript>`,
  'an open iframe': `${LINK}<iframe>`,
  'an open noembed': `${LINK}<noembed>`,
  'an open noframes': `${LINK}<noframes>`,
  'an open template': `${LINK}<template>`,
  'an open attribute quote': `${LINK}<p title="`,
  'an open select': `${LINK}<select><option>`,
  'an open table': `<table><tr><td>${LINK}`,
  'an open link': `${LINK}<a href="https://elsewhere.example/">`,
  'open svg': `${LINK}<svg><text>`,
  'open math': `${LINK}<math><mi>`,
  'a display:none wrapper': `<div style="display:none">${LINK}`,
  'a visibility:hidden wrapper': `<div style="visibility:hidden">${LINK}`,
  'a font-size:0 wrapper': `<div style="font-size:0">${LINK}`,
  'an opacity:0 wrapper': `<div style="opacity:0">${LINK}`,
  'a wrapper moved off the page': `<div style="position:absolute;left:-9999px">${LINK}`,
  'a whole document whose body is hidden': `<html><body style="display:none">${LINK}</body></html>`,
  'a body that clips its content': `<body style="height:0;overflow:hidden;opacity:0">${LINK}`,
  'a layer over the whole page': `${LINK}<div style="position:fixed;top:0;left:0;width:100%;height:100%;background:#59636e;z-index:2147483647"></div>`,
  'a negative margin that pulls what follows off the page': `${LINK}<div style="margin-bottom:-100000px"></div>`,
  'markup in an attribute that ends a noscript': `${LINK}<noscript><p title="</noscript><textarea>"></noscript>`,
  'a float as wide as the page': `${LINK}<div style="float:left;width:100%;height:100px;background:#fff"></div>`,
};

/**
 * HTML parts that reach the whole mail (a style sheet, also one that only another parser's mode reads as
 * one; text to the end; no body; a refresh): refused, with why.
 */
const REFUSED: Record<string, [string, RegExp]> = {
  'a style sheet': [`${LINK}<style>p, a { display: none }</style>`, /<style>/],
  'an open style sheet': [`${LINK}<style>`, /<style>/],
  'a style sheet in svg': [`${LINK}<svg><style>a { display: none }</style></svg>`, /<style>/],
  'a linked style sheet': [`${LINK}<link rel="stylesheet" href="https://elsewhere.example/hide.css">`, /<link>/],
  'a style sheet behind noscript': [`${LINK}<noscript><!--</noscript><style>a { display: none }</style>--></noscript>`, /<style>/],
  'an open plaintext': [`${LINK}<plaintext>`, /<plaintext>/],
  'a frameset': [`<frameset><frame src="{{ confirm_url }}"></frameset>`, /<frameset>/],
  'a page that goes elsewhere': [`<meta http-equiv="refresh" content="0;url=about:blank">${LINK}`, /refresh/],
};

/**
 * Whatever the HTML part of a template says, the mail it makes, opened in chromium as a mail reader
 * opens it (no scripts), shows the unsubscribe link, visible and clickable.
 */
describe('the foot of a mail made from a template, in a real browser', () => {
  let stack: Stack;
  let product: Product;
  let session: { cookie: string; csrf: string };
  let browser: Browser;
  let n = 0;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    product = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, product.id);
    session = await signIn(stack, 'ada@example.com');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const preview = (html: string) =>
    stack.request({
      method: 'POST',
      url: `/dashboard/${product.id}/live/templates/confirmation/all/preview`,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ subject: 'Hi', text: '{{ confirm_url }}', html, _csrf: session.csrf }),
    });

  /** The mail a template saved before the rule makes (written to the table as the editor used to keep it). */
  async function mailOf(html: string): Promise<string> {
    await stack.db.query(
      `INSERT INTO mail_templates (id, product_id, kind, locale, subject, text, html, updated_at) VALUES ('tpl_foot', $1, 'confirmation', NULL, 'Hi', '{{ confirm_url }}', $2, now() + $3 * interval '1 second')
       ON CONFLICT (product_id, kind, locale) DO UPDATE SET html = EXCLUDED.html, updated_at = EXCLUDED.updated_at`,
      [product.id, html, ++n],
    );
    const to = `foot-${n}@example.com`;
    await signUp(stack, product.keys.live.publishable, to);
    return (await stack.mail.waitFor(to)).html;
  }

  /** Where the unsubscribe link is in the mail as chromium shows it, and whether it is the thing under the pointer there. */
  async function footIn(html: string) {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 800, height: 600 } });
    try {
      const page = await context.newPage();
      await page.setContent(html, { waitUntil: 'domcontentloaded' });
      const link = page.locator('a[href*="/unsubscribe/"]');
      if ((await link.count()) !== 1) return { links: await link.count() };
      await link.scrollIntoViewIfNeeded({ timeout: 2_000 }).catch(() => undefined);
      return {
        links: 1,
        ...(await link.evaluate((element) => {
          const { document, getComputedStyle } = globalThis as unknown as InPage;
          const a = element as unknown as Shown;
          const box = a.getBoundingClientRect();
          const style = getComputedStyle(a);
          const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
          return {
            text: a.textContent,
            sized: box.width > 0 && box.height > 0,
            visible: a.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true }),
            fontSize: parseFloat(style.fontSize) >= 10,
            clickable: hit !== null && (hit === a || a.contains(hit)),
          };
        })),
      };
    } finally {
      await context.close();
    }
  }

  const SHOWN = { links: 1, text: 'Unsubscribe', sized: true, visible: true, fontSize: true, clickable: true };

  it.each(Object.entries(HOSTILE))('%s: the preview and the mail show the unsubscribe link', async (_, html) => {
    const previewed = await preview(html);
    expect(previewed.status).toBe(200);
    expect(await footIn(JSON.parse(previewed.text).html)).toEqual(SHOWN);
    expect(await footIn(await mailOf(html))).toEqual(SHOWN);
  });

  it.each(Object.entries(REFUSED))('%s: the editor refuses it, naming the problem; a mail of one saved before is the default mail', async (_, [html, problem]) => {
    const previewed = await preview(html);
    expect(previewed.status).toBe(400);
    expect(JSON.parse(previewed.text).error).toEqual(expect.objectContaining({ param: 'html', message: expect.stringMatching(problem) }));
    const mail = await mailOf(html);
    expect(mail).toContain('You asked to join the <strong>Acme</strong> waitlist.');
    expect(await footIn(mail)).toEqual(SHOWN);
  });
});
