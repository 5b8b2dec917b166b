import { readFileSync } from 'node:fs';
import { Page } from 'playwright-core';

/** A laptop's and a phone's screen: every page is checked at both. */
export const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/** The WCAG 2.0 to 2.2 A and AA rules (colour contrast and target size among them) and axe-core's best practices. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** One rule axe-core found broken, with the elements that break it. */
export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

type Rules = { id: string }[];
interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
  passes: Rules;
  incomplete: Rules;
  inapplicable: Rules;
}

/**
 * The serious and critical violations axe-core finds on the page as it is now. The page's context must
 * bypass the CSP (`bypassCSP: true`): axe-core is a script the pages' policy rightly refuses.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  // Read, not required: axe-core's module looks for a window as it loads, and jest's has none.
  await page.addScriptTag({ content: readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8') });
  const result = await page.evaluate(
    (tags) => (globalThis as unknown as { axe: { run(options: object): Promise<AxeResult> } }).axe.run({ runOnly: { type: 'tag', values: tags } }),
    TAGS,
  );
  // A run that left colour contrast out would pass pages no one can read.
  const ran = [...result.violations, ...result.passes, ...result.incomplete, ...result.inapplicable].map((rule) => rule.id);
  if (!ran.includes('color-contrast') || !ran.includes('target-size')) throw new Error(`axe-core ran without colour contrast or target size: ${ran.join(', ')}`);
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact!, help: violation.help, targets: violation.nodes.map((node) => node.target.join(' ')) }));
}

/** The violations of each page checked, by page and size, collected over a walk so that one run names them all. */
export class Findings {
  readonly found: string[] = [];

  constructor(private readonly page: Page) {}

  async check(name: string): Promise<void> {
    for (const violation of await seriousViolations(this.page)) {
      this.found.push(`${name} (${this.page.viewportSize()!.width} px): ${violation.impact} ${violation.id}: ${violation.help}: ${violation.targets.join(', ')}`);
    }
  }
}
