import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a form's script takes the solver in. */
const SOLVER_PLACE = /^ *\/\/ function solve\(challenge\), from challenges\/solve\.browser\.js$/m;

/** A browser script as written (the build's copy ends with a source map comment no page needs). */
export const browserScript = (path: string) => readFileSync(path, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');

/** The solver's function alone: without its comments, nor the build's "use strict", which means nothing mid-script. */
const SOLVER = browserScript(join(__dirname, 'solve.browser.js'))
  .replace(/^(\/\/.*|"use strict";)\n/gm, '')
  .trimEnd();

/** The browser script at `path` with the challenge's solver in the place it names (the script-tag form's and the hosted form's). */
export function withSolver(path: string): string {
  const script = browserScript(path);
  if (!SOLVER_PLACE.test(script)) throw new Error(`${path} has no place for the challenge's solver`);
  return script.replace(SOLVER_PLACE, SOLVER.replace(/^(?=.)/gm, '  '));
}
