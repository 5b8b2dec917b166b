import { DefaultTreeAdapterTypes, defaultTreeAdapter as tree, html as spec, parse, parseFragment, serialize, serializeOuter } from 'parse5';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

/** Why a template's HTML could hide the service's foot, and where in it (when known). */
export class UnsafeHtml extends Error {
  constructor(
    reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(reason);
  }
}

/**
 * What no template's HTML may hold, whatever else it does: what styles, replaces or leaves the whole
 * mail rather than the template's own part of it. A style sheet reaches every element, the foot and
 * its ancestors too (no mail reader scopes it), <plaintext> turns the rest of the mail into text, a
 * frameset leaves it no body, and a refresh leads the reader away.
 */
function hazardOf(element: Element): string | null {
  switch (element.tagName) {
    case 'style':
      return 'a <style> element styles the whole mail, the service’s unsubscribe link with it; write the styles in style attributes instead.';
    case 'link':
      return 'a <link> element can bring a style sheet for the whole mail, the service’s unsubscribe link with it; write the styles in style attributes instead.';
    case 'plaintext':
      return 'a <plaintext> element turns the rest of the mail into text, the service’s unsubscribe link with it.';
    case 'frameset':
    case 'frame':
      return `a <${element.tagName}> element leaves the mail no body for the service’s unsubscribe link.`;
    case 'meta':
      return element.attrs.some((attr) => attr.name === 'http-equiv' && attr.value.trim().toLowerCase() === 'refresh')
        ? 'a <meta http-equiv="refresh"> takes the reader away from the mail and its unsubscribe link.'
        : null;
    default:
      return null;
  }
}

/** The first hazard in a parsed tree, in document order, template contents included. */
function firstHazard(node: Node): UnsafeHtml | null {
  if (tree.isElementNode(node)) {
    const reason = hazardOf(node);
    if (reason) return new UnsafeHtml(reason, node.sourceCodeLocation?.startLine, node.sourceCodeLocation?.startCol);
  }
  const children = [...('childNodes' in node ? node.childNodes : []), ...('content' in node ? [node.content] : [])];
  for (const child of children) {
    const hazard = firstHazard(child);
    if (hazard) return hazard;
  }
  return null;
}

/**
 * The hazard a template's HTML holds as written, with its line and column, read as a mail reader reads
 * it (scripts off, so <noscript> holds markup).
 */
export function htmlHazard(html: string): UnsafeHtml | null {
  return firstHazard(parse(html, { scriptingEnabled: false, sourceCodeLocationInfo: true }));
}

const elementChild = (parent: Node, tagName: string): Element | undefined =>
  ('childNodes' in parent ? parent.childNodes : []).find((child): child is Element => tree.isElementNode(child) && child.tagName === tagName);

/** Holds the template's content: whatever its margins and floats do, what follows starts below it. */
const CONTENT_STYLE = 'display:flow-root';
/** Holds the foot: above anything the template positions, on a ground of its own. */
const FOOT_STYLE = 'position:relative;z-index:2147483647;background:#fff';

/**
 * The mail's HTML document: the template's HTML parsed as a browser parses it and written out again
 * from the tree (which closes every element left open: a comment, a textarea, a table, a link), its
 * <html> and <body> without attributes (which would style the foot too), its content in one block, and
 * the foot after that block, a sibling in <body> that nothing of the template contains or covers.
 * The document is read again, with scripts on and off, to be sure that the foot is still where it was
 * put and no hazard appeared (markup that another parser's mode reads differently). Throws UnsafeHtml
 * for HTML that holds a hazard or does not read back.
 */
export function mailDocument(html: string, footHtml: string): string {
  const document = parse(html, { scriptingEnabled: false });
  const hazard = firstHazard(document);
  if (hazard) throw hazard;
  const root = elementChild(document, 'html')!;
  const body = elementChild(root, 'body');
  if (!body) throw new UnsafeHtml('the HTML leaves the mail no body for the service’s unsubscribe link.');
  root.attrs = [];
  body.attrs = [];
  const content = tree.createElement('div', spec.NS.HTML, [{ name: 'style', value: CONTENT_STYLE }]);
  for (const child of [...body.childNodes]) {
    tree.detachNode(child);
    tree.appendChild(content, child);
  }
  const foot = parseFragment(`<div style="${FOOT_STYLE}">${footHtml}</div>`).childNodes[0] as Element;
  tree.appendChild(body, content);
  tree.appendChild(body, foot);
  const written = serialize(document);
  const expected = serializeOuter(foot);
  for (const scriptingEnabled of [false, true]) {
    const reread = parse(written, { scriptingEnabled });
    const hazard = firstHazard(reread);
    if (hazard) throw new UnsafeHtml(hazard.message);
    const rereadBody = elementChild(elementChild(reread, 'html')!, 'body');
    const last = rereadBody?.childNodes.filter(tree.isElementNode).at(-1);
    if (!last || serializeOuter(last) !== expected) {
      throw new UnsafeHtml('the HTML reads differently once its open elements are closed, so the service’s unsubscribe link could not follow it safely; close what it opens.');
    }
  }
  return written;
}
