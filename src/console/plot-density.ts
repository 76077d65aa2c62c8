// Owns how many points a plot of a given width asks for: the one place that knows PX_PER_POINT.

/** Auto points: one point per this many CSS pixels of plot width. */
export const PX_PER_POINT = 2;

/** Points for a plot `widthPx` wide: one per PX_PER_POINT CSS px, at least 1, at most `pointsMax` (a width that is not a finite number gives 1). */
export function pointsForWidth(widthPx: number, pointsMax: number): number {
  const wanted = Number.isFinite(widthPx) ? Math.floor(Math.max(0, widthPx) / PX_PER_POINT) : 1;
  return Math.max(1, Math.min(wanted, Math.floor(pointsMax)));
}
