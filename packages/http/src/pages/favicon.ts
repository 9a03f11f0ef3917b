import type { RoutePolicy } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';

/** Where browsers ask for a site's icon, whatever page they show. */
export const FAVICON_PATH = '/favicon.ico';

/**
 * The icon's access rule: open and not counted, like the reference — a browser asks for it with
 * every page it opens, and that must neither need a key nor use up the budget of the client address.
 */
export const FAVICON_POLICY = { template: FAVICON_PATH, credential: null, limit: null } as const satisfies RoutePolicy;

/** The icon's edge in pixels: the size browsers show in a tab. */
const _SIZE = 16;

/**
 * `GET /favicon.ico`: a 16×16 icon (a dial with one hand, the engine-hours meter) drawn in code, so
 * that the package ships no binary file and fetches nothing. It never changes within a version, so
 * browsers may keep it for a day.
 */
export function faviconRoute(): Handler<FleetHoursEnv> {
  let icon: Uint8Array<ArrayBuffer> | undefined;
  return function favicon(c) {
    icon ??= _drawIcon();
    return c.body(icon, 200, { 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=86400' });
  };
}

/**
 * The ICO file: its header, one directory entry and one 32-bit BMP image (rows bottom-up, BGRA),
 * followed by the 1-bit AND mask that ICO requires even when the alpha channel says it all.
 */
function _drawIcon(): Uint8Array<ArrayBuffer> {
  const pixelBytes = _SIZE * _SIZE * 4;
  const maskBytes = _SIZE * 4; // each mask row is padded to 32 bits
  const imageBytes = 40 + pixelBytes + maskBytes;
  const file = new Uint8Array(6 + 16 + imageBytes);
  const view = new DataView(file.buffer);
  view.setUint16(2, 1, true); // type: icon
  view.setUint16(4, 1, true); // one image
  file[6] = _SIZE;
  file[7] = _SIZE;
  view.setUint16(10, 1, true); // colour planes
  view.setUint16(12, 32, true); // bits per pixel
  view.setUint32(14, imageBytes, true);
  view.setUint32(18, 22, true); // the image follows the header and the directory
  view.setUint32(22, 40, true); // BITMAPINFOHEADER
  view.setInt32(26, _SIZE, true);
  view.setInt32(30, _SIZE * 2, true); // ICO counts the image and its mask
  view.setUint16(34, 1, true);
  view.setUint16(36, 32, true);
  view.setUint32(42, pixelBytes + maskBytes, true);
  for (let y = 0; y < _SIZE; y += 1) {
    for (let x = 0; x < _SIZE; x += 1) {
      const [red, green, blue, alpha] = _pixel(x, y);
      const offset = 62 + ((_SIZE - 1 - y) * _SIZE + x) * 4;
      file.set([blue, green, red, alpha], offset);
    }
  }
  return file;
}

/** The colour of the pixel at column `x`, row `y` (from the top): a blue dial, a white rim gap and hand. */
function _pixel(x: number, y: number): readonly [number, number, number, number] {
  const centre = (_SIZE - 1) / 2;
  const dx = x - centre;
  const dy = y - centre;
  const radius = Math.hypot(dx, dy);
  if (radius > 7.5) return [0, 0, 0, 0];
  // The hand points up and to the right, from the centre to near the rim.
  const along = (dx - dy) / Math.SQRT2;
  const across = Math.abs(dx + dy) / Math.SQRT2;
  const onHand = along >= -0.5 && along <= 5 && across <= 0.8;
  const onHub = radius <= 1.5;
  return onHand || onHub || (radius > 5.8 && radius <= 6.6) ? [255, 255, 255, 255] : [37, 99, 235, 255];
}
