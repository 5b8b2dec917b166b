import { Liquid, LiquidError, Template } from 'liquidjs';
import { htmlHazard, mailDocument, UnsafeHtml } from './mail-html';
import { MailKind, REQUIRED_LINK, sampleValues, TEMPLATE_VARIABLES, TemplateValues } from './variables';

/** The three parts of a mail as the team writes them. */
export interface TemplateSource {
  subject: string;
  text: string;
  html: string;
}
export type TemplatePart = keyof TemplateSource;

/** A template parsed, checked and ready to render many times. */
export interface CompiledTemplate {
  kind: MailKind;
  parts: Record<TemplatePart, Template[]>;
}

const PART_WORDS: Record<TemplatePart, string> = { subject: 'the subject', text: 'the text', html: 'the HTML' };
/** A part's most characters, counted in code points (😀 is one; a ZWJ sequence is one per part). */
export const TEMPLATE_MAX_LENGTH: Record<TemplatePart, number> = { subject: 300, text: 50_000, html: 100_000 };

/** Why a template was refused, with where in which part. */
export class TemplateRefused extends Error {
  constructor(
    readonly part: TemplatePart,
    readonly line: number | undefined,
    readonly column: number | undefined,
    readonly reason: string,
  ) {
    const where = line === undefined ? `In ${PART_WORDS[part]}` : `Line ${line}, column ${column} of ${PART_WORDS[part]}`;
    super(`${where}: ${reason}`);
  }
}

/**
 * One engine per kind of output: the HTML part escapes every value it shows, the subject and the text
 * do not (they are not HTML). Neither reads a file: the tags that would (include, render, layout) are
 * gone and `templates` is an empty in-memory set; no filter turns escaping off (raw is gone); a value
 * shows its own properties only and an unknown name or filter is an error; limits stop a loop that
 * would take the mailer's time or memory.
 */
function engine(escape: boolean): Liquid {
  const liquid = new Liquid({
    templates: {},
    ownPropertyOnly: true,
    strictVariables: true,
    strictFilters: true,
    outputEscape: escape ? 'escape' : undefined,
    parseLimit: 200_000,
    renderLimit: 1_000,
    memoryLimit: 10_000_000,
  });
  for (const tag of ['include', 'render', 'layout', 'block']) delete liquid.tags[tag];
  delete liquid.filters.raw;
  return liquid;
}

const ENGINES: Record<TemplatePart, Liquid> = { subject: engine(false), text: engine(false), html: engine(true) };

/** Names no template reaches, whatever they are asked of: the objects' machinery, not their data. */
const MACHINERY = new Set(
  [Object.prototype, Function.prototype, String.prototype, Array.prototype, Number.prototype].flatMap((proto) => Object.getOwnPropertyNames(proto)).filter((name) => name !== 'length'),
);
MACHINERY.add('prototype');

/** Where a liquidjs error points, and its message without liquidjs's own ", line:1, col:2". */
function refusedBy(part: TemplatePart, error: unknown): TemplateRefused {
  if (!(error instanceof LiquidError)) throw error;
  const [line, column] = error.token?.getPosition() ?? [];
  const reason = error.message.replace(/, line:\d+, col:\d+$/, '').replace(/^tag "(\w+)" not found$/, 'there is no tag "$1" here (templates cannot read other files)');
  return new TemplateRefused(part, line, column, `${reason}.`);
}

/** Refuses a part that names a variable its kind lacks, or reaches past a value into its machinery. */
function checkVariables(kind: MailKind, part: TemplatePart, template: Template[]): void {
  const known = TEMPLATE_VARIABLES[kind];
  const analysis = ENGINES[part].analyzeSync(template, { partials: false });
  for (const variable of Object.values(analysis.variables).flat()) {
    const { row, col } = variable.location;
    const [root, ...rest] = variable.segments;
    for (const segment of variable.segments) {
      if (typeof segment === 'object') throw new TemplateRefused(part, row, col, `write out the name in brackets in "${variable.toString()}"; a name looked up from a variable is not allowed.`);
      if (typeof segment === 'string' && (segment.startsWith('_') || MACHINERY.has(segment))) {
        throw new TemplateRefused(part, row, col, `"${variable.toString()}" is not allowed: "${segment}" is not a value a template may show.`);
      }
    }
    if (!(String(root) in analysis.globals) || !analysis.globals[String(root)].includes(variable)) continue;
    if (!Object.hasOwn(known, String(root))) {
      throw new TemplateRefused(part, row, col, `unknown variable "${String(root)}"; the ${kind} mail knows ${Object.keys(known).join(', ')}.`);
    }
    if (rest.length > 1 || (rest.length === 1 && rest[0] !== 'size')) {
      throw new TemplateRefused(part, row, col, `"${variable.toString()}" is not allowed: a variable is text, whose only property is size.`);
    }
  }
}

/** Where a part ends, for a problem of the part as a whole. */
function endOf(source: string): [number, number] {
  const lines = source.split('\n');
  return [lines.length, lines[lines.length - 1].length + 1];
}

/**
 * A template parsed and checked: refused (TemplateRefused, with its line and column) when a part does
 * not parse, names an unknown variable or reaches into the machinery of a value, reads another file,
 * fails to render on sample values, or when the text or the HTML never shows the kind's required link.
 */
export function compileTemplate(kind: MailKind, source: TemplateSource): CompiledTemplate {
  const parts = {} as Record<TemplatePart, Template[]>;
  const samples = sampleValues(kind);
  const link = REQUIRED_LINK[kind];
  for (const part of ['subject', 'text', 'html'] as const) {
    const limit = TEMPLATE_MAX_LENGTH[part];
    if (source[part].length > limit && [...source[part]].length > limit) throw new TemplateRefused(part, undefined, undefined, `it is longer than ${limit.toLocaleString('en')} characters.`);
    if (part === 'subject' && !source.subject.trim()) throw new TemplateRefused(part, undefined, undefined, 'a mail needs a subject.');
    try {
      parts[part] = ENGINES[part].parse(source[part]);
    } catch (error) {
      throw refusedBy(part, error);
    }
    checkVariables(kind, part, parts[part]);
    const shown = renderPart(part, parts[part], samples);
    if (part !== 'subject' && !shown.includes(samples[link])) {
      const [line, column] = endOf(source[part]);
      throw new TemplateRefused(part, line, column, `${PART_WORDS[part]} never shows {{ ${link} }}, the link this mail is for.`);
    }
    if (part === 'html') checkFootFollows(source.html, shown);
  }
  return { kind, parts };
}

/** Stands in for the foot when a template is checked: mailDocument checks how the HTML holds any foot. */
const SAMPLE_FOOT = '<p><a href="https://waitlist.example/unsubscribe/sample-unsubscribe-token">Unsubscribe</a></p>';

/**
 * Refuses HTML that could hide the service's foot: what it holds as written (with its line and
 * column), then what it makes when rendered, as the mailer builds the mail of it (withFoot).
 */
function checkFootFollows(source: string, rendered: string): void {
  const written = htmlHazard(source);
  if (written) throw new TemplateRefused('html', written.line, written.column, written.message);
  try {
    mailDocument(rendered, SAMPLE_FOOT);
  } catch (error) {
    if (error instanceof UnsafeHtml) throw new TemplateRefused('html', undefined, undefined, error.message);
    throw error;
  }
}

function renderPart(part: TemplatePart, template: Template[], values: TemplateValues): string {
  try {
    return String(ENGINES[part].renderSync(template, { ...values }));
  } catch (error) {
    throw refusedBy(part, error);
  }
}

/** A checked template with a mail's values: the subject on one line, the text and the HTML as written (the HTML's values escaped). */
export function renderTemplate(template: CompiledTemplate, values: TemplateValues): TemplateSource {
  return {
    subject: renderPart('subject', template.parts.subject, values).replace(/\s+/g, ' ').trim(),
    text: renderPart('text', template.parts.text, values),
    html: renderPart('html', template.parts.html, values),
  };
}
