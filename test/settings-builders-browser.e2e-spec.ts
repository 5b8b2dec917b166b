import { Product as ProductRecord } from '@app/shared';
import { Browser, Locator, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { SETTINGS_SECTIONS } from '../apps/api/src/dashboard/settings/settings-sections';
import { dashboardPage } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { Product, Stack } from './support/stack';

/** What the checks read of the browser's document (the tests compile without the DOM's types). */
interface InPage {
  document: { activeElement: { id: string } | null };
}

/** The settings' sections and their builders, as a person uses them in Debian's chromium, without a script. */
describe('settings sections and builders in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;
  let settings: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ browser, page } = await dashboardPage(stack, 'ada@example.com', PASSWORD));
    settings = `/dashboard/${acme.id}/live/settings`;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const stored = () => stack.db.getRepository(ProductRecord).findOneByOrFail({ id: acme.id });
  const saved = () => page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

  /** The field's error, read through its aria-describedby, and whether the page opened at it. */
  async function errorBeside(field: Locator): Promise<{ words: string; invalid: string | null; focused: boolean }> {
    const described = (await field.getAttribute('aria-describedby')) ?? '';
    const errorId = described.split(' ').find((id) => id.endsWith('-error'));
    const words = errorId ? ((await page.locator(`[id="${errorId}"]`).textContent()) ?? '') : '';
    const id = await field.getAttribute('id');
    const focused = await page.evaluate((wanted) => (globalThis as unknown as InPage).document.activeElement?.id === wanted, id);
    return { words, invalid: await field.getAttribute('aria-invalid'), focused };
  }

  it('every section is reachable from the index, posts only its own fields and saves back to itself', async () => {
    for (const section of SETTINGS_SECTIONS) {
      await page.goto(settings);
      await page.getByRole('link', { name: section.title, exact: true }).click();
      await page.waitForURL(`**${settings}/${section.path}`);
      const names = await page.locator('form.settings [name]').evaluateAll((controls) => controls.map((control) => (control as unknown as { name: string }).name));
      const own = names.filter((name) => name !== '_csrf').map((name) => name.split('.')[0]);
      expect([...new Set(own)].sort()).toEqual([...section.fields].sort());
      await page.getByRole('button', { name: 'Save' }).click();
      await saved();
      expect(new URL(page.url()).pathname).toBe(`${settings}/${section.path}`);
    }
    expect((await page.goto(`${settings}/nothing-here`))?.status()).toBe(404);
  });

  it('milestones and questions through the builders with an error beside its field', async () => {
    await page.goto(`${settings}/leaderboard`);
    const first = page.getByRole('group', { name: 'Milestone 1 (new)' });
    await first.getByLabel('Credited referrals', { exact: true }).fill('3');
    await first.getByLabel('Name', { exact: true }).fill('Three friends');
    await first.getByLabel('Extra places', { exact: true }).fill('5');
    await first.getByLabel('A line for the person', { exact: true }).fill('You skip 5 places.');
    await page.getByRole('button', { name: 'Save' }).click();
    await saved();

    // A row more after each save; one without a name is refused beside its name, the form as typed.
    const second = page.getByRole('group', { name: 'Milestone 2 (new)' });
    await second.getByLabel('Credited referrals', { exact: true }).fill('10');
    await page.getByRole('button', { name: 'Save' }).click();
    const name = page.getByRole('group', { name: 'Milestone 2' }).getByLabel('Name', { exact: true });
    expect(await errorBeside(name)).toEqual({ words: 'Milestone 2 needs a name of 1 to 60 characters.', invalid: 'true', focused: true });
    expect(new URL(page.url()).pathname).toBe(`${settings}/leaderboard`);
    expect(await page.getByRole('group', { name: 'Milestone 2' }).getByLabel('Credited referrals', { exact: true }).inputValue()).toBe('10');
    await name.fill('Ten friends');
    await page.getByRole('button', { name: 'Save' }).click();
    await saved();
    expect((await stored()).milestones).toEqual([
      { referrals: 3, name: 'Three friends', places: 5, message: 'You skip 5 places.' },
      { referrals: 10, name: 'Ten friends', places: 0, message: null },
    ]);

    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Sign-up questions' }).click();
    const question = page.getByRole('group', { name: 'Question 1 (new)' });
    await question.getByLabel('Key', { exact: true }).fill('role');
    await question.getByLabel('Type', { exact: true }).selectOption('single_choice');
    await question.getByLabel('Answer', { exact: true }).selectOption('required');
    await question.getByLabel('Label', { exact: true }).fill('Your role');
    await question.getByLabel('Choices', { exact: true }).fill('Founder\nEngineer\nOther');
    // Words in other languages are folded away until opened (no script: <details>).
    await question.getByText('In other languages').click();
    await question.getByLabel('Label in Deutsch').fill('Deine Rolle');
    await page.getByRole('button', { name: 'Save' }).click();
    await saved();
    const next = page.getByRole('group', { name: 'Question 2 (new)' });
    await next.getByLabel('Key', { exact: true }).fill('Team Size');
    await next.getByLabel('Label', { exact: true }).fill('Team size');
    await page.getByRole('button', { name: 'Save' }).click();
    const key = page.getByRole('group', { name: 'Question 2' }).getByLabel('Key', { exact: true });
    expect(await errorBeside(key)).toMatchObject({ words: expect.stringContaining('Question 2 needs a key'), invalid: 'true', focused: true });
    await key.fill('team-size');
    await page.getByRole('button', { name: 'Save' }).click();
    await saved();
    const product = await stored();
    expect(product.questions).toEqual([
      { key: 'role', type: 'single_choice', required: true, label: 'Your role', choices: ['Founder', 'Engineer', 'Other'], labels: { de: { label: 'Deine Rolle' } } },
      { key: 'team-size', type: 'short_text', required: false, label: 'Team size' },
    ]);
    // The questions' form left the milestones as they were.
    expect(product.milestones).toHaveLength(2);

    await page.goto(`/w/${acme.keys.live.publishable}`);
    await page.getByLabel('Your role').selectOption('Engineer');
    await page.getByLabel('Team size').fill('12');
  });
});
