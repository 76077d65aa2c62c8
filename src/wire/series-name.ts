// Owns the one reversible mapping between a labelled series (Prometheus, OTLP, tagged Graphite) and a Strata metric name.

/** One label of a series: a name and a value. */
export interface Label {
  readonly name: string;
  readonly value: string;
}

/** A labelled series: its metric name (Prometheus' `__name__`) and its other labels. */
export interface SeriesIdentity {
  readonly name: string;
  /** Sorted by name, names unique, values non-empty. */
  readonly labels: readonly Label[];
}

/** Characters a metric name of a labelled series may not hold: they delimit the label set. */
const NAME_RESERVED = /[{}]/;
/** Characters a label name may not hold: they delimit or quote the label set. */
const LABEL_NAME_RESERVED = /[{}=,"\\\s]/;
// Control characters are refused by the store's metric-name rule; refusing them here too would be a second owner.

function byName(a: Label, b: Label): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function escapeValue(value: string): string {
  // Nearly every value needs no escaping; three indexOf scans cost a fraction of a replace.
  if (value.indexOf('\\') === -1 && value.indexOf('"') === -1 && value.indexOf('\n') === -1) return value;
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/**
 * Why a metric name and labels cannot form a series, or undefined when they can. The scheme's own
 * rules only: a non-empty name without braces; label names non-empty, unique, not `__name__`, and
 * free of `{ } = , " \` and white space. Lengths are the store's rule (METRIC_NAME_LENGTH_MAX
 * applies to the whole formatted name).
 */
export function seriesProblem(name: string, labels: readonly Label[]): string | undefined {
  if (name === '') return 'the series has no metric name';
  if (NAME_RESERVED.test(name)) return `metric name ${JSON.stringify(name)} holds a brace`;
  const seen = new Set<string>();
  for (const label of labels) {
    if (label.name === '') return 'a label name is empty';
    if (label.name === '__name__') return 'the metric name is given twice';
    if (LABEL_NAME_RESERVED.test(label.name)) return `label name ${JSON.stringify(label.name)} holds a reserved character`;
    if (seen.has(label.name)) return `label ${JSON.stringify(label.name)} is given twice`;
    seen.add(label.name);
  }
  return undefined;
}

/**
 * The Strata metric name of a series: the name alone when no label has a value, else
 * `name{a="x",b="y"}`, labels sorted by name, empty values dropped (an empty label is an absent
 * one, as in Prometheus), values escaped as in Prometheus' text format (`\\`, `\"`, `\n`).
 * Call seriesProblem first: this assumes the names are acceptable.
 */
export function seriesMetricName(name: string, labels: readonly Label[]): string {
  const kept = labels.filter((label) => label.value !== '');
  if (kept.length === 0) return name;
  kept.sort(byName);
  let out = `${name}{`;
  for (let i = 0; i < kept.length; i++) {
    const label = kept[i] as Label;
    out += `${i === 0 ? '' : ','}${label.name}="${escapeValue(label.value)}"`;
  }
  return `${out}}`;
}

/** Reads one escaped label value starting after its opening quote; returns the value and the index after the closing quote, or undefined. */
function readValue(metric: string, start: number): [string, number] | undefined {
  let value = '';
  for (let i = start; i < metric.length; i++) {
    const c = metric[i] as string;
    if (c === '"') return [value, i + 1];
    if (c !== '\\') {
      value += c;
      continue;
    }
    const next = metric[++i];
    if (next === 'n') value += '\n';
    else if (next === '\\' || next === '"') value += next;
    else return undefined;
  }
  return undefined;
}

/** The labels of a canonical `name{...}` tail starting after the brace, or undefined when it is not canonical. */
function readLabels(metric: string, start: number): Label[] | undefined {
  const labels: Label[] = [];
  let i = start;
  for (;;) {
    const eq = metric.indexOf('="', i);
    if (eq <= i) return undefined;
    const name = metric.slice(i, eq);
    const read = readValue(metric, eq + 2);
    if (read === undefined || read[0] === '') return undefined;
    const previous = labels[labels.length - 1];
    if (previous !== undefined && !(previous.name < name)) return undefined;
    labels.push({ name, value: read[0] });
    i = read[1];
    if (metric[i] === '}') return i === metric.length - 1 ? labels : undefined;
    if (metric[i] !== ',') return undefined;
    i++;
  }
}

/**
 * The series a Strata metric name stands for: the inverse of seriesMetricName on every name it
 * forms. A name not in that canonical form (any native metric, `cpu.load`) is a series with that
 * name and no labels, so every stored metric can be read as a series.
 */
export function parseSeriesMetricName(metric: string): SeriesIdentity {
  const brace = metric.indexOf('{');
  if (brace <= 0 || !metric.endsWith('}')) return { name: metric, labels: [] };
  const name = metric.slice(0, brace);
  const labels = readLabels(metric, brace + 1);
  if (labels === undefined || seriesProblem(name, labels) !== undefined) return { name: metric, labels: [] };
  return { name, labels };
}
