/**
 * The Content-Security-Policy of a self-contained page (the reference at `/docs`, the fleet view at
 * `/`): it admits exactly the page's inline script and style by SHA-256 hash, lets it call only its
 * own origin, and nothing else.
 *
 * @param page The inline script and style, byte for byte as the page embeds them, and the page's `img-src` sources.
 * @returns The policy, as the value of a `Content-Security-Policy` header.
 */
export async function inlinePagePolicy(page: {
  readonly script: string;
  readonly style: string;
  readonly imgSrc: string;
}): Promise<string> {
  const [scriptHash, styleHash] = await Promise.all([_sha256Base64(page.script), _sha256Base64(page.style)]);
  return [
    "default-src 'none'",
    `script-src 'sha256-${scriptHash}'`,
    `style-src 'sha256-${styleHash}'`,
    "connect-src 'self'",
    `img-src ${page.imgSrc}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

async function _sha256Base64(text: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary);
}
