import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The repository's documents stand alone: every relative link in them leads to a file that exists, and
 * every `#anchor` to a heading of that file, so that moving a section cannot leave a reader at a dead end.
 */
const ROOT = resolve(__dirname, '..');

function markdownFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchors: lowercased, punctuation dropped, spaces as hyphens, a repeated heading numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of withoutCode(text).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading
      .replace(/`|\*\*|\[|\]\([^)]*\)/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const withoutCode = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

const files = [join(ROOT, 'README.md'), ...['docs', 'bench', 'libs'].flatMap((folder) => markdownFiles(join(ROOT, folder)))];

describe('the documents link only to what exists', () => {
  it.each(files.map((file) => [relative(ROOT, file), file]))('%s', (_name, file) => {
    const broken: string[] = [];
    for (const [, target] of withoutCode(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const into = path ? resolve(dirname(file), decodeURI(path)) : file;
      if (!existsSync(into)) broken.push(`${target}: no such file`);
      else if (anchor && into.endsWith('.md') && !anchorsOf(readFileSync(into, 'utf8')).has(anchor)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the anchors GitHub makes', () => {
    expect(anchorsOf('# Rotating ENCRYPTION_KEY\n## Mail that arrives: SPF, DKIM, DMARC\n## `npm start`\n## Rotating ENCRYPTION_KEY')).toEqual(
      new Set(['rotating-encryption_key', 'mail-that-arrives-spf-dkim-dmarc', 'npm-start', 'rotating-encryption_key-1']),
    );
  });
});
