import { Browser, Locator, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { joinLine } from './support/flows';
import { invitationsTo } from './support/invitations';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

/** What the check reads of the focused element and the page (the tests compile without the DOM's types). */
interface InPage {
  innerWidth: number;
  innerHeight: number;
  document: { activeElement: Element | null };
  getComputedStyle(element: Element): { outlineStyle: string; outlineWidth: string; outlineColor: string; backgroundColor: string };
}
interface Element {
  tagName: string;
  id: string;
  parentElement: Element | null;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number; left: number; bottom: number; right: number };
}

/** The focused element as the person at the keyboard sees it: what it is, its ring, and what the ring is drawn against. */
interface Focused {
  tag: string;
  id: string;
  /** Its text, or for a field its id. */
  name: string;
  ring: { style: string; width: number; color: string };
  /** Its own background, and the nearest one behind it. */
  fill: string;
  behind: string;
  onScreen: boolean;
}

const focused = (page: Page): Promise<Focused> =>
  page.evaluate(() => {
    const window = globalThis as unknown as InPage;
    const element = window.document.activeElement!;
    const style = window.getComputedStyle(element);
    const opaque = (color: string) => !/^transparent$|^rgba\(.*, 0\)$/.test(color);
    let behind = 'rgb(255, 255, 255)';
    for (let parent = element.parentElement; parent; parent = parent.parentElement) {
      const color = window.getComputedStyle(parent).backgroundColor;
      if (opaque(color)) {
        behind = color;
        break;
      }
    }
    const box = element.getBoundingClientRect();
    return {
      tag: element.tagName.toLowerCase(),
      id: element.id,
      name: element.tagName === 'INPUT' ? element.id : (element.textContent ?? '').trim(),
      ring: { style: style.outlineStyle, width: parseFloat(style.outlineWidth), color: style.outlineColor },
      fill: opaque(style.backgroundColor) ? style.backgroundColor : behind,
      behind,
      onScreen: box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth && box.bottom > box.top,
    };
  });

/** WCAG's relative luminance of a computed colour (rgb or rgba, opaque) and the contrast of two. */
function luminance(color: string): number {
  const [r, g, b] = color.match(/[\d.]+/g)!.slice(0, 3).map((value) => {
    const channel = Number(value) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(one: string, other: string): number {
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}

/** The focused element has a solid ring at least 2 px wide that stands out 3:1 from what is behind it and from the element itself. */
function expectRing(element: Focused): void {
  const seen = {
    name: element.name,
    solid: element.ring.style !== 'none',
    wide: element.ring.width >= 2,
    againstPage: contrast(element.ring.color, element.behind) >= 3,
    againstElement: contrast(element.ring.color, element.fill) >= 3,
  };
  expect(seen).toEqual({ name: element.name, solid: true, wide: true, againstPage: true, againstElement: true });
}

/** Keyboard only, as someone who cannot use a mouse: the dashboard's main tasks and the hosted form, in Debian's chromium. */
describe('the dashboard and the hosted form by keyboard alone', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'] });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    for (const email of ['first@example.com', 'guest@example.com']) await joinLine(stack, acme.keys.live.publishable, email);
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL: await serve(stack) });
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** Tabs (forward, or back by Shift+Tab) until the element named `name` has focus (a page has fewer than a hundred stops), and checks its ring. */
  async function tabTo(name: string, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<Focused> {
    for (let stops = 0; stops < 100; stops++) {
      await page.keyboard.press(key);
      const element = await focused(page);
      if (element.name === name) {
        expectRing(element);
        return element;
      }
    }
    throw new Error(`Tab never reached "${name}" on ${page.url()}`);
  }

  /** Presses a key that leads to another page, and waits for what that page shows. */
  async function press(key: 'Enter' | 'Space', shown: Locator): Promise<void> {
    await page.keyboard.press(key);
    await shown.waitFor();
  }

  /** The first Tab of a page reaches "Skip to content", off screen until then; Enter moves focus to the main content. */
  async function skips(): Promise<void> {
    const hidden = (await page.getByRole('link', { name: 'Skip to content' }).boundingBox())!;
    expect(hidden.y + hidden.height).toBeLessThanOrEqual(0);
    await page.keyboard.press('Tab');
    const skip = await focused(page);
    expect([skip.tag, skip.name, skip.onScreen]).toEqual(['a', 'Skip to content', true]);
    expectRing(skip);
    await page.keyboard.press('Enter');
    await waitFor(async () => (await focused(page)).tag === 'main', 'focus on the main content');
    const main = await focused(page);
    expect(main.id).toBe('main');
    expectRing(main);
  }

  it('skip link: the first Tab of a dashboard page and of a hosted page focuses "Skip to content", and Enter moves focus past the bar to the main content', async () => {
    await page.goto('/dashboard/login');
    await skips();
    await page.goto(`/w/${acme.keys.live.publishable}`);
    await skips();
    // From the main content, the next Tab is its first field, not the way back to the top.
    await page.keyboard.press('Tab');
    expect((await focused(page)).tag).toBe('input');
  });

  it('signs in, opens an entry and invites it, and deletes another through the page that asks first, by Tab, Shift+Tab, Enter, Space and typing, each focus ringed', async () => {
    await page.goto('/dashboard');
    await tabTo('email');
    await page.keyboard.type('ada@example.com');
    await tabTo('password');
    await page.keyboard.type(PASSWORD);
    await tabTo('Sign in');
    await press('Enter', page.getByRole('heading', { name: 'Your products' }));

    await tabTo('Acme');
    await press('Enter', page.getByRole('heading', { name: 'Overview (live)' }));
    // Past the bar by the skip link; Shift+Tab goes back into the bar, its last stop first.
    await skips();
    await page.keyboard.press('Shift+Tab');
    expect((await focused(page)).name).toBe('Sign out');
    await tabTo('Entries', 'Shift+Tab');
    await press('Enter', page.getByRole('heading', { name: 'Entries', exact: true }));

    await tabTo('guest@example.com');
    await press('Enter', page.getByRole('heading', { name: 'guest@example.com' }));
    await tabTo('Invite');
    await press('Space', page.getByRole('status').filter({ hasText: 'the entry is invited' }));
    await waitFor(() => invitationsTo(stack, 'guest@example.com').length === 1, 'the invitation mail');

    await tabTo('Entries');
    await press('Enter', page.getByRole('heading', { name: 'Entries', exact: true }));
    await tabTo('first@example.com');
    await press('Enter', page.getByRole('heading', { name: 'first@example.com' }));
    await tabTo('Delete');
    await press('Enter', page.getByRole('heading', { name: 'Delete first@example.com?' }));
    await tabTo('Delete the entry');
    await press('Enter', page.getByRole('status').filter({ hasText: 'first@example.com is deleted.' }));
  }, 60_000);

  it('joins the waitlist on the hosted form by keyboard, the field and the button ringed', async () => {
    await page.goto(`/w/${acme.keys.live.publishable}`);
    await tabTo('email');
    await page.keyboard.type('katherine@example.com');
    await tabTo('Join the waitlist');
    await press('Enter', page.getByRole('heading', { name: 'Check your inbox' }));
    await stack.mail.waitFor('katherine@example.com', 1);
  });
});
