import { readFileSync } from 'node:fs';
import { Page } from 'playwright-core';

/** One rule axe-core found broken, with the elements that break it. */
export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/**
 * The serious and critical violations axe-core finds on the page as it is now. The page's context must
 * bypass the CSP (`bypassCSP: true`): axe-core is a script the pages' policy rightly refuses.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  // Read, not required: axe-core's module looks for a window as it loads, and jest's has none.
  await page.addScriptTag({ content: readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8') });
  const result = await page.evaluate(() => (globalThis as unknown as { axe: { run(): Promise<AxeResult> } }).axe.run());
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact!, help: violation.help, targets: violation.nodes.map((node) => node.target.join(' ')) }));
}
