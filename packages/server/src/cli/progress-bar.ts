import type { TextSink } from './cli-io.js';

/** A one-line progress display on a terminal. */
export interface ProgressBar {
  /** Sets how much is done, in the unit of `total`; redrawn at most every `intervalMs`. */
  update(done: number): void;
  /** Replaces the bar with a status text until the next update, e.g. `Writing 1,000,000 segments…`. */
  status(text: string): void;
  /** Clears the line. */
  finish(): void;
}

/** Options of {@link createProgressBar}. */
export interface ProgressBarOptions {
  /** Where to draw: stderr, so stdout stays clean for `--json`. */
  readonly stream: TextSink;
  /** Draw only when true (stderr is a terminal and the work is long): otherwise every call is a no-op. */
  readonly enabled: boolean;
  /** The total, e.g. the file size in bytes. */
  readonly total: number;
  /** Shown before the bar, e.g. the file name. */
  readonly label: string;
  /** Formats an amount of the unit, e.g. bytes as MB. */
  readonly formatAmount?: (amount: number) => string;
  /** Bar cells. Default 30. */
  readonly width?: number;
  /** Default 100 ms. */
  readonly intervalMs?: number;
  /** Clock in milliseconds. Default `performance.now`. */
  readonly now?: () => number;
}

const CLEAR_LINE = '\r\u001b[2K';

/**
 * A progress bar drawn in place with a carriage return and ANSI line clearing:
 * `segments.ndjson [██████░░░░] 61%  56.2 / 92.1 MB`.
 *
 * @param options Where, whether, and the total.
 * @returns The bar.
 */
export function createProgressBar(options: ProgressBarOptions): ProgressBar {
  if (!options.enabled) return { update() {}, status() {}, finish() {} };
  const width = options.width ?? 30;
  const intervalMs = options.intervalMs ?? 100;
  const now = options.now ?? (() => performance.now());
  const formatAmount = options.formatAmount ?? ((amount: number) => String(Math.round(amount)));
  let lastDrawn = -Infinity;
  let drawn = false;

  return {
    update(done) {
      const at = now();
      if (at - lastDrawn < intervalMs && done < options.total) return;
      lastDrawn = at;
      const fraction = options.total > 0 ? Math.min(1, Math.max(0, done / options.total)) : 0;
      const filled = Math.round(fraction * width);
      const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
      const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
      options.stream.write(`${CLEAR_LINE}${options.label} [${bar}] ${percent}  ${formatAmount(done)} / ${formatAmount(options.total)}`);
      drawn = true;
    },
    status(text) {
      options.stream.write(`${CLEAR_LINE}${options.label}: ${text}`);
      drawn = true;
      lastDrawn = now();
    },
    finish() {
      if (drawn) options.stream.write(CLEAR_LINE);
      drawn = false;
    },
  };
}

/** Bytes as megabytes with one decimal, e.g. `92.1 MB`. */
export function formatMegabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
