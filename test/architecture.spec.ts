import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The import rules of docs/architecture.md, read from the code: arrows between folders run one way.
 * Folder = the first folder under an app's src/ or under libs/shared/src/.
 */
const ROOT = resolve(__dirname, '..');
const SHARED = 'libs/shared/src';

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Each file's imports of this repository's files, as paths from the root (without .ts). */
function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/from '([^']+)'/g)]
    .map(([, target]) => target)
    .filter((target) => target.startsWith('.') || target.startsWith('@app/shared'))
    .map((target) => (target.startsWith('@app/shared') ? target.replace('@app/shared', SHARED) : relative(ROOT, resolve(ROOT, dirname(file), target))));
}

/** The folder of a file under `base` (a top-level file of base is its own room, named '.'). */
function room(base: string, path: string): string | null {
  if (!path.startsWith(`${base}/`)) return null;
  const rest = path.slice(base.length + 1).split('/');
  return rest.length > 1 ? rest[0] : '.';
}

/** Folder → folders it imports, inside one base. */
function graph(base: string): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>();
  for (const file of sources(base)) {
    const from = room(base, file)!;
    for (const target of imports(file)) {
      const to = room(base, target);
      if (to === null || to === from) continue;
      if (!arrows.has(from)) arrows.set(from, new Set());
      arrows.get(from)!.add(to);
    }
  }
  return arrows;
}

/** Every cycle's folders, as 'a → b → a'. */
function cycles(arrows: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const walk = (path: string[]) => {
    for (const next of arrows.get(path.at(-1)!) ?? []) {
      if (next === path[0]) found.push([...path, next].join(' → '));
      else if (!path.includes(next) && next > path[0]) walk([...path, next]);
    }
  };
  for (const start of arrows.keys()) walk([start]);
  return found;
}

/** The file an import names, from the root with its extension: a file (libs/client names its .js), or a folder's index; null when it is not of this tree. */
function fileOf(target: string): string | null {
  const found = [`${target}.ts`, `${target}/index.ts`, target.replace(/\.js$/, '.ts')].find((path) => path.endsWith('.ts') && existsSync(join(ROOT, path)));
  return found ?? null;
}

/** File → files it imports (type-only imports too: a circle of types is still a circle to read). */
function fileGraph(bases: string[]): Map<string, string[]> {
  const arrows = new Map<string, string[]>();
  for (const file of bases.flatMap(sources)) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(/(?:from|import\(?)\s*'([^']+)'/g)]
      .map(([, target]) => target)
      .map((target) => (target.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), target)) : target.replace(/^@app\/shared/, SHARED).replace(/^@waitlist\/client/, 'libs/client/src')))
      .map(fileOf)
      .filter((target): target is string => target !== null && target !== file);
    arrows.set(file, [...new Set(targets)]);
  }
  return arrows;
}

/** The files that import each other round about (Tarjan's strongly connected components of two files or more). */
function circles(arrows: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of arrows.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) === index.get(file)) {
      const circle = stack.splice(stack.indexOf(file));
      if (circle.length > 1) found.push(circle.sort());
    }
  };
  for (const file of arrows.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the import graph', () => {
  const apps = ['apps/api/src', 'apps/mailer/src', 'apps/webhooks/src'];

  it.each([...apps, SHARED])('no two folders of %s import each other, directly or round about', (base) => {
    expect(cycles(graph(base))).toEqual([]);
  });

  it('no file of apps/, libs/, test/, bench/ or scripts/ imports itself round about, not even by a type', () => {
    const bases = [...apps, SHARED, 'libs/client/src', 'libs/integrations/src', 'test', 'bench', 'scripts'];
    expect(circles(fileGraph(bases))).toEqual([]);
  });

  it("the dashboard's rooms import shared/ and auth/, never each other; shared/ imports only auth/, and auth/ nothing of the dashboard", () => {
    const base = 'apps/api/src/dashboard';
    const below: Record<string, string[]> = { auth: [], shared: ['auth'] };
    const crossings = [...graph(base)]
      .filter(([from]) => from !== '.')
      .flatMap(([from, to]) => [...to].filter((target) => !(below[from] ?? ['shared', 'auth']).includes(target)).map((target) => `${from} → ${target}`));
    expect(crossings).toEqual([]);
  });

  it('plumbing imports no feature: apps/api/src/common imports nothing else of the app', () => {
    expect([...(graph('apps/api/src').get('common') ?? [])]).toEqual([]);
  });

  it('domain rules import nothing but domain rules: libs/shared/src/domain imports no other folder', () => {
    expect([...(graph(SHARED).get('domain') ?? [])]).toEqual([]);
  });

  it('no file imports a controller of another folder', () => {
    const crossings = apps.flatMap((base) =>
      sources(base).flatMap((file) =>
        imports(file)
          .filter((target) => target.endsWith('.controller') && room(base, target) !== room(base, file))
          .map((target) => `${file} → ${target}`),
      ),
    );
    expect(crossings).toEqual([]);
  });

  it('apps import libs/shared and never each other; libs/shared imports no app', () => {
    const crossings = [...apps, SHARED].flatMap((base) =>
      sources(base).flatMap((file) =>
        imports(file)
          .filter((target) => !target.startsWith(`${base}/`) && target !== base && !target.startsWith(SHARED))
          .map((target) => `${file} → ${target}`),
      ),
    );
    expect(crossings).toEqual([]);
  });

  it('libs/client imports only its own files: it is published alone and runs beyond Node.js', () => {
    const foreign = sources('libs/client/src').flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/from '([^']+)'/g)]
        .map(([, target]) => target)
        .filter((target) => !target.startsWith('./'))
        .map((target) => `${file} → ${target}`),
    );
    expect(foreign).toEqual([]);
  });

  it("libs/integrations reaches the service through the client alone: its files are copied into customers' projects", () => {
    const service = sources('libs/integrations/src').flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/(?:from|require\()\s*'([^']+)'/g)]
        .map(([, target]) => target)
        .filter((target) => target.startsWith('@app/') || target.startsWith('../'))
        .map((target) => `${file} → ${target}`),
    );
    expect(service).toEqual([]);
  });
});

describe('file sizes', () => {
  it('no file of code, its tests and benchmarks included, is over 300 lines, but those a generator writes', () => {
    const long = ['apps', 'libs', 'test', 'bench', 'scripts']
      .flatMap((folder) => readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true }))
      .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name) && !entry.parentPath.includes('node_modules'))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
      .map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }))
      // A file a tool writes says so in its first line (libs/client/src/openapi.ts, from docs/openapi.json).
      .filter(({ text }) => !text.startsWith('// @generated '))
      .map(({ file, text }) => ({ file, lines: text.split('\n').length - 1 }))
      .filter(({ lines }) => lines > 300)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
