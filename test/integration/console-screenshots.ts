// Owns the screenshot checks of the console's browser tests: PNG signature and size, and what a screenshot shows, counted in the browser from its decoded pixels.
import type { Page } from 'playwright-core';

/** The eight bytes every PNG file starts with. */
export const PNG_SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Smallest sum of the RGB channels' differences from the background at which a pixel counts as ink (antialiasing fringes below it do not). */
export const INK_DIFFERENCE_MIN = 48;

/** Width and height from a PNG's IHDR chunk (right after the signature), or undefined when `bytes` is no PNG. */
export function pngDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 24 || !PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return undefined;
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** A rectangle of a screenshot, in CSS pixels of the viewport (screenshots are taken at scale 'css'). */
export interface Region {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** What a screenshot shows, from its pixels. */
export interface ScreenshotInk {
  readonly width: number;
  readonly height: number;
  /** The most common colour, as RGB: the page's background. */
  readonly background: readonly number[];
  /** Pixels that differ from the background by at least INK_DIFFERENCE_MIN. */
  readonly inked: number;
  /** Distinct RGB colours in the whole image. */
  readonly colours: number;
  /** Ink pixels inside `region` (0 when none was given), and the region's area within the image. */
  readonly regionInked: number;
  readonly regionArea: number;
}

/** Where the first element matching `selector` is on the page's viewport (clipped to it), or undefined when it is not shown. */
export async function regionOf(page: Page, selector: string): Promise<Region | undefined> {
  const box = await page.locator(selector).first().boundingBox();
  const viewport = page.viewportSize();
  if (box === null || viewport === null) return undefined;
  const x = Math.max(0, Math.floor(box.x));
  const y = Math.max(0, Math.floor(box.y));
  const width = Math.min(viewport.width, Math.ceil(box.x + box.width)) - x;
  const height = Math.min(viewport.height, Math.ceil(box.y + box.height)) - y;
  return width > 0 && height > 0 ? { x, y, width, height } : undefined;
}

/**
 * Decodes `png` in `page` (any page without a policy against blob images, e.g. about:blank) with
 * createImageBitmap and counts its background, ink and colours, and the ink inside `region`.
 */
export async function screenshotInk(page: Page, png: Buffer, region?: Region): Promise<ScreenshotInk> {
  const args = { base64: png.toString('base64'), region: region ?? null, differenceMin: INK_DIFFERENCE_MIN };
  return page.evaluate(async (a) => {
    const bytes = Uint8Array.from(atob(a.base64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
    ctx.drawImage(bitmap, 0, 0);
    const px = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
    const counts = new Map<number, number>();
    for (let i = 0; i < px.length; i += 4) {
      const rgb = ((px[i] as number) << 16) | ((px[i + 1] as number) << 8) | (px[i + 2] as number);
      counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
    }
    let background = 0;
    let most = -1;
    for (const [rgb, count] of counts) if (count > most) [background, most] = [rgb, count];
    const bg = [(background >> 16) & 255, (background >> 8) & 255, background & 255] as const;
    const inkAt = (i: number): boolean =>
      Math.abs((px[i] as number) - bg[0]) + Math.abs((px[i + 1] as number) - bg[1]) + Math.abs((px[i + 2] as number) - bg[2]) >= a.differenceMin;
    let inked = 0;
    for (let i = 0; i < px.length; i += 4) if (inkAt(i)) inked++;
    let regionInked = 0;
    let regionArea = 0;
    if (a.region !== null) {
      const x1 = Math.min(bitmap.width, a.region.x + a.region.width);
      const y1 = Math.min(bitmap.height, a.region.y + a.region.height);
      for (let y = Math.max(0, a.region.y); y < y1; y++) {
        for (let x = Math.max(0, a.region.x); x < x1; x++) {
          regionArea++;
          if (inkAt((y * bitmap.width + x) * 4)) regionInked++;
        }
      }
    }
    return { width: bitmap.width, height: bitmap.height, background: [...bg], inked, colours: counts.size, regionInked, regionArea };
  }, args);
}
