import { Page } from 'playwright-core';

export const PHONE = { width: 390, height: 844 };

/** What the page's check reads of the browser's window (the tests compile without the DOM's types). */
interface InPage {
  innerWidth: number;
  document: {
    documentElement: { scrollWidth: number };
    querySelectorAll(selector: string): Iterable<{
      closest(selector: string): unknown;
      getBoundingClientRect(): { right: number };
      getAttribute(name: string): string | null;
      textContent: string | null;
    }>;
  };
}

/** The checks of a walk through pages at a phone's size, on the page `page()` gives once the browser is up. */
export function phoneChecks(page: () => Page) {
  /** Pages that do not fit, with what sticks out; collected over a walk so that one run names them all. */
  const problems: string[] = [];
  /** The dashboard pages the walk checked, and those its pages link to (path and query). */
  const walked = new Set<string>();
  const linked = new Set<string>();
  const pathOf = (url: string) => {
    const { pathname, search } = new URL(url, 'http://page');
    return pathname + search;
  };

  /**
   * The page is no wider than the screen (a table may scroll inside its own box), and no form control
   * outside a table lies beyond its right edge.
   */
  async function fits(name: string): Promise<void> {
    const { scrollWidth, innerWidth, outside, links } = await page().evaluate(() => {
      const { document, innerWidth } = globalThis as unknown as InPage;
      return {
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth,
        outside: [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
          .filter((control) => !control.closest('table') && control.getBoundingClientRect().right > innerWidth)
          .map((control) => control.getAttribute('name') ?? control.textContent),
        links: [...document.querySelectorAll('a[href^="/dashboard/"]')].map((link) => link.getAttribute('href')!),
      };
    });
    walked.add(pathOf(page().url()));
    // A download (the entries' CSV) is no page.
    for (const link of links) if (!new URL(link, 'http://page').pathname.endsWith('.csv')) linked.add(pathOf(link));
    if (scrollWidth > innerWidth) problems.push(`${name}: ${scrollWidth} px wide on a ${innerWidth} px screen`);
    if (outside.length) problems.push(`${name}: beyond the right edge: ${outside.join(', ')}`);
  }

  /** `fits`, and the bar's sections and "Sign out" are on the first screen, where a thumb reaches them. */
  async function fitsWithBar(name: string): Promise<void> {
    await fits(name);
    const targets = [page().getByRole('button', { name: 'Sign out' }), ...(await page().getByRole('navigation').getByRole('link').all())];
    for (const target of targets) {
      const box = (await target.isVisible()) ? await target.boundingBox() : null;
      const inside = box && box.x >= 0 && box.x + box.width <= PHONE.width && box.y >= 0 && box.y + box.height <= PHONE.height;
      if (!inside) problems.push(`${name}: "${await target.textContent()}" is ${box ? `at x ${Math.round(box.x)}–${Math.round(box.x + box.width)}, y ${Math.round(box.y)}` : 'hidden'}`);
    }
  }

  /**
   * The pages that the walked pages link to and the walk did not reach, each checked (with what they
   * link to in turn): every page a link leads to is walked, whether or not the walk above knew of it.
   */
  async function walkLinks(): Promise<void> {
    for (let next = [...linked].filter((path) => !walked.has(path)); next.length > 0; next = [...linked].filter((path) => !walked.has(path))) {
      for (const path of next) {
        await page().goto(path);
        await fitsWithBar(`${path} (linked)`);
        walked.add(path);
      }
    }
  }

  return { problems, fits, fitsWithBar, walkLinks };
}
