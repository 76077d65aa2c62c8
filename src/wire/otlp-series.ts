// Owns the naming of one OTLP series (a metric's data points with one attribute set) and the decoder's cross-request cache of them.
import type { OtlpPoint } from './otlp-point.js';
import { SERIES_CACHE_BYTES_MAX, SERIES_CACHE_ENTRIES_MAX, SERIES_CACHE_EXTRA_NAMES_MAX, SERIES_CACHE_KEY_BYTES_MAX, SERIES_LABELS_MAX } from './protocol-limits.js';
import { SeenFilter, SeriesCache, type SeriesCacheOptions, type SeriesCacheStats } from './series-cache.js';
import { type Label, seriesMetricName } from './series-name.js';

/** What one cached text entry is estimated to cost besides its strings: the entry, its two arrays and the map slot. */
const TEXT_ENTRY_OVERHEAD_BYTES = 160;

/**
 * How the data points of one metric with one attribute set are named: refused (`refusal` is the
 * message), or their labels and the series every point writes first (`main`: the gauge's or sum's
 * series, or the `_count` series of a histogram, exponential histogram or summary). The other
 * series (`_sum`, each `le` bucket, each quantile) are formed on first use and kept, so a
 * repeated data point names them with a lookup.
 */
export class OtlpSeries {
  private sum: string | undefined;
  private extras: Map<number, string> | undefined;
  private inf: string | undefined;

  constructor(
    readonly refusal: string | undefined,
    readonly labels: readonly Label[],
    readonly main: string,
    /** The sanitised metric name the derived series names start with. */
    private readonly base: string,
  ) {}

  /** Estimated bytes held now (the cache's budget counts them). */
  get bytes(): number {
    return (this.refusal?.length ?? 0) + 2 * this.main.length;
  }

  /** The `_sum` series. */
  sumName(cache: OtlpSeriesCache): string {
    if (this.sum === undefined) {
      this.sum = seriesMetricName(`${this.base}_sum`, this.labels);
      cache.charge(this.sum.length);
    }
    return this.sum;
  }

  /** The `_bucket` series of the bucket with upper bound `bound` (finite). */
  bucketName(bound: number, cache: OtlpSeriesCache): string {
    return this.extra(bound, `${this.base}_bucket`, 'le', cache);
  }

  /** The `_bucket` series of the +Inf bucket. */
  infBucketName(cache: OtlpSeriesCache): string {
    if (this.inf === undefined) {
      this.inf = seriesMetricName(`${this.base}_bucket`, [...this.labels, { name: 'le', value: '+Inf' }]);
      cache.charge(this.inf.length);
    }
    return this.inf;
  }

  /** The series of a summary's quantile `quantile`. */
  quantileName(quantile: number, cache: OtlpSeriesCache): string {
    return this.extra(quantile, this.base, 'quantile', cache);
  }

  /**
   * The series `name{labels, label="String(at)"}`, kept by `at` up to SERIES_CACHE_EXTRA_NAMES_MAX
   * (a series has one kind, so bounds and quantiles never share a map; 0 and -0 have one text).
   */
  private extra(at: number, name: string, label: string, cache: OtlpSeriesCache): string {
    const known = this.extras?.get(at);
    if (known !== undefined) return known;
    const formed = seriesMetricName(name, [...this.labels, { name: label, value: String(at) }]);
    this.extras ??= new Map();
    if (this.extras.size < SERIES_CACHE_EXTRA_NAMES_MAX) {
      this.extras.set(at, formed);
      cache.charge(formed.length);
    }
    return formed;
  }
}

/** How an OTLP/JSON point's attributes hash under a context (tests force collisions with a constant one). */
export type OtlpTextHash = (context: number, point: OtlpPoint) => number;

/** The series cache's limits and hashes; every field defaults to the protocol limits and the hashes below. */
export interface OtlpSeriesCacheOptions extends SeriesCacheOptions {
  readonly textHash?: OtlpTextHash;
}

/** Multiplier of the text hash (the 32-bit FNV prime) and the odd constant that spreads its final bits. */
const TEXT_PRIME = 0x01000193;
const TEXT_MIX = 0x85ebca6b;

/** Attributes a point keeps (OtlpPoint drops those past SERIES_LABELS_MAX + 1; its count tells them apart). */
function keptAttributes(point: OtlpPoint): number {
  return Math.min(point.attributeCount, SERIES_LABELS_MAX + 1);
}

/** Folds one string, its length first (so the parts stay apart), into `hash`. */
function mixText(hash: number, text: string): number {
  let h = Math.imul(hash ^ text.length, TEXT_PRIME);
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), TEXT_PRIME);
  return h ^ (h >>> 15);
}

/** A 30-bit hash of a point's attribute count, keys and values as sent, under `context`. */
export function otlpTextHash(context: number, point: OtlpPoint): number {
  let hash = Math.imul(context, TEXT_MIX) ^ point.attributeCount;
  const kept = keptAttributes(point);
  for (let i = 0; i < kept; i++) hash = mixText(mixText(hash, point.keys[i] as string), point.values[i] as string);
  hash = Math.imul(hash ^ (hash >>> 16), TEXT_MIX);
  return (hash ^ (hash >>> 13)) & 0x3fffffff;
}

/** A series cached by the text of a point's attributes, with that text to compare. */
interface TextEntry {
  readonly context: number;
  readonly count: number;
  readonly keys: readonly string[];
  readonly values: readonly string[];
  readonly cost: number;
  readonly series: OtlpSeries;
}

/** Whether `entry` was stored for the attributes of `point` under `context`. */
function sameText(entry: TextEntry, context: number, point: OtlpPoint): boolean {
  if (entry.context !== context || entry.count !== point.attributeCount) return false;
  for (let i = 0; i < entry.keys.length; i++) if (entry.keys[i] !== point.keys[i] || entry.values[i] !== point.values[i]) return false;
  return true;
}

/**
 * The OTLP decoder's cache of series across requests. A metric's context (its name as sent, its
 * kind and whether it is a counter, the resource's job and instance) becomes a small number, the
 * salt of its points' keys; a protobuf data point's key is then its attribute bytes, an OTLP/JSON
 * one the text of its attributes (hashed, then compared string by string: building one key string
 * and hashing it measured several times slower). Contexts, byte keys and text keys are each bounded
 * by SERIES_CACHE_ENTRIES_MAX entries and SERIES_CACHE_BYTES_MAX estimated bytes; past a bound that
 * part starts over. Context numbers only grow, so a key of a forgotten context never matches again.
 */
export class OtlpSeriesCache {
  readonly bytes: SeriesCache<OtlpSeries>;
  private readonly texts = new Map<number, TextEntry>();
  private readonly contexts = new Map<string, number>();
  private readonly entriesMax: number;
  private readonly bytesMax: number;
  private readonly textHash: OtlpTextHash;
  private readonly textsSeen = new SeenFilter();
  private textBytes = 0;
  private textHits = 0;
  private nextContext = 1;

  /** `options` shrinks the caches or replaces their hashes (tests); the protocol limits by default. */
  constructor(options: OtlpSeriesCacheOptions = {}) {
    this.bytes = new SeriesCache(options);
    this.entriesMax = options.entriesMax ?? SERIES_CACHE_ENTRIES_MAX;
    this.bytesMax = options.bytesMax ?? SERIES_CACHE_BYTES_MAX;
    this.textHash = options.textHash ?? otlpTextHash;
  }

  /** The number of a metric context, described by `key` (which must tell every context apart). */
  context(key: string): number {
    let id = this.contexts.get(key);
    if (id === undefined) {
      if (this.contexts.size >= this.entriesMax) this.contexts.clear();
      id = this.nextContext++;
      this.contexts.set(key, id);
      this.charge(key.length);
    }
    return id;
  }

  /** The hash of the attributes of `point` (as an OTLP/JSON decoder filled them) under `context`, for text and setText. */
  textKeyHash(context: number, point: OtlpPoint): number {
    return this.textHash(context, point);
  }

  /** The series stored for the attributes of `point` under `context`, whose textKeyHash is `hash`, or undefined. */
  text(hash: number, context: number, point: OtlpPoint): OtlpSeries | undefined {
    const entry = this.texts.get(hash);
    if (entry === undefined || !sameText(entry, context, point)) return undefined;
    this.textHits++;
    return entry.series;
  }

  /** Series held now (by bytes and by text) and hits so far. */
  stats(): SeriesCacheStats {
    const bytes = this.bytes.stats();
    return { entries: bytes.entries + this.texts.size, hits: bytes.hits + this.textHits };
  }

  /** Offers the series of the attributes of `point` under `context`: stored when offered before; a colliding entry is replaced. */
  setText(hash: number, context: number, point: OtlpPoint, series: OtlpSeries): void {
    const kept = keptAttributes(point);
    let textLength = 0;
    for (let i = 0; i < kept; i++) textLength += (point.keys[i] as string).length + (point.values[i] as string).length;
    // As with byte keys, attributes longer than a key may be are named the slow way each time.
    const cost = TEXT_ENTRY_OVERHEAD_BYTES + series.bytes + 2 * textLength;
    if (textLength > SERIES_CACHE_KEY_BYTES_MAX || cost > this.bytesMax) return;
    const keys = point.keys.slice(0, kept);
    const values = point.values.slice(0, kept);
    if (!this.textsSeen.seenBefore(hash)) return;
    const old = this.texts.get(hash);
    if (old !== undefined) {
      this.texts.delete(hash);
      this.textBytes -= old.cost;
    }
    if (this.texts.size >= this.entriesMax || this.textBytes + cost > this.bytesMax) {
      this.texts.clear();
      this.textBytes = 0;
    }
    this.texts.set(hash, { context, count: point.attributeCount, keys, values, cost, series });
    this.textBytes += cost;
  }

  /** Counts bytes a cached series grew by. */
  charge(bytes: number): void {
    this.bytes.charge(bytes);
  }
}
