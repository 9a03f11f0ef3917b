/**
 * An import ending in `?raw` is the text of the file (Vite's convention, which vitest follows; the
 * package's tsup config inlines it at build time): how the fleet view's script, a checked `.js`
 * file, becomes the text its page embeds.
 */
declare module '*?raw' {
  const text: string;
  export default text;
}
