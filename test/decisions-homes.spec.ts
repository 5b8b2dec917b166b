import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * docs/decisions.md became short records per feature under docs/decisions/, and its lab notes moved to
 * bench/NOTES.md. Every heading and every rule's bold lead of the old file must still be found in one
 * of them, word for word, so that none was lost in the move or in a later edit.
 */
const ROOT = resolve(__dirname, '..');
const DECISIONS = join(ROOT, 'docs/decisions');

const oldItems = readFileSync(join(__dirname, 'fixtures/decisions-before-the-split.txt'), 'utf8')
  .split('\n')
  .filter((line) => line && !line.startsWith('#'));

const homes = [...readdirSync(DECISIONS).map((name) => join(DECISIONS, name)), join(ROOT, 'bench/NOTES.md')].map((path) => readFileSync(path, 'utf8')).join('\n');

describe("docs/decisions.md's rules in their new homes", () => {
  it('has every heading and bold lead of the old file', () => {
    expect(oldItems.length).toBeGreaterThan(400);
    expect(oldItems.filter((item) => !homes.includes(item))).toEqual([]);
  });

  it('keeps lab notes out of the records: no run-by-run section in docs/decisions/', () => {
    const records = readdirSync(DECISIONS).map((name) => [name, readFileSync(join(DECISIONS, name), 'utf8')] as const);
    expect(records.filter(([, text]) => /^#+ .*(Issue 24:|Where the benchmarks stop|Tried and dropped)/m.test(text)).map(([name]) => name)).toEqual([]);
  });
});
