/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/g;

/**
 * Parses the Prometheus text format (version 0.0.4) strictly: every line is a comment, empty, or a
 * well-formed sample, and every sample's family was declared with # TYPE; anything else throws.
 */
export function parseExposition(text: string): Sample[] {
  const families = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type)) throw new Error(`Bad type: ${line}`);
      families.add(name);
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`Not a sample: ${line}`);
    const [, name, labelText = '', value] = match;
    const family = name.replace(/_(bucket|sum|count|total|created)$/, '');
    if (!families.has(name) && !families.has(family)) throw new Error(`A sample of no declared family: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of labelText.matchAll(LABEL)) labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    // Prometheus reads floats as Go does: NaN and Inf in any case (prom-client writes "Nan").
    const special = { '+inf': Infinity, inf: Infinity, '-inf': -Infinity, nan: NaN }[value.toLowerCase()];
    const number = special ?? Number(value);
    if (Number.isNaN(number) && special === undefined) throw new Error(`Not a number: ${line}`);
    samples.push({ name, labels, value: number });
  }
  return samples;
}

/** The value of the one sample with this name and these labels (at least), or undefined. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/**
 * The sample names an exposition declares: each family's name, and for a histogram the names of its
 * _bucket, _sum and _count series.
 */
export function declaredNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('# TYPE ')) continue;
    const [name, type] = line.slice(7).split(' ');
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
  }
  return names;
}
