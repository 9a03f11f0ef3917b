/**
 * The bounds of one ingestion request (`docs/ingestion.md`): beyond `maxPoints` or `maxBodyBytes`
 * a request is refused with 413 `payload_too_large`, and a body that takes longer than
 * `bodyTimeoutMs` to arrive with 408 `request_timeout`.
 */
export interface IngestLimits {
  /** Points per native batch, at most. Default 10,000. */
  readonly maxPoints: number;
  /** Bytes per request body, at most; a larger body is refused as soon as it grows past it, never buffered. Default 5 MiB. */
  readonly maxBodyBytes: number;
  /** Milliseconds a request body may take to arrive: a client that stops sending mid-body is answered 408, never held forever. Default 30 s. */
  readonly bodyTimeoutMs: number;
}

/** The limits of `docs/ingestion.md`: 10,000 points and 5 MiB per request; 30 s for a body to arrive. */
export const DEFAULT_INGEST_LIMITS: IngestLimits = Object.freeze({
  maxPoints: 10_000,
  maxBodyBytes: 5 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
});

/**
 * The ingestion limits to apply: {@link DEFAULT_INGEST_LIMITS} with the given ones.
 *
 * @param limits The limits to change; unset or `undefined` fields keep their default.
 * @returns Every limit.
 * @throws {RangeError} When a limit is not a positive integer.
 * @example
 * ```ts
 * import { resolveIngestLimits } from '@fleet-hours/http';
 * resolveIngestLimits({ maxPoints: 500 }).maxBodyBytes; // 5242880
 * ```
 */
export function resolveIngestLimits(limits: { readonly [Name in keyof IngestLimits]?: number | undefined } = {}): IngestLimits {
  const resolved: Record<string, number> = { ...DEFAULT_INGEST_LIMITS };
  for (const [name, value] of Object.entries(limits)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_INGEST_LIMITS, name)) throw new RangeError(`Unknown ingestion limit "${name}"`);
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`Ingestion limit "${name}" must be a positive integer, got ${String(value)}`);
    resolved[name] = value;
  }
  return resolved as unknown as IngestLimits;
}
