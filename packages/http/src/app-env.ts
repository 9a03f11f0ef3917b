import type { AccessResult, RateLimitDecision } from '@fleet-hours/core';

/** What the access log and the rate limiter know about the route a request reached. */
export interface RouteInfo {
  /** The route template, e.g. `/api/v1/devices/{id}/hours`. */
  readonly template: string;
  /** Requests per minute for this route (D13); `null` for routes that are not limited (the OpenAPI document, /docs). */
  readonly limit: number | null;
}

/** The Hono environment of the Fleet Hours app: the per-request variables its middleware share. */
export interface FleetHoursEnv {
  Variables: {
    /** Set by the request-id middleware. */
    requestId: string;
    /** The client address, resolved once per request (D14). */
    clientAddress: string;
    /** Set by each route before anything else. */
    route: RouteInfo | undefined;
    /** Set by the authenticate middleware. */
    access: AccessResult | undefined;
    /** The id of the key the request presented, when the store knows it (never the key). */
    keyId: number | null | undefined;
    /** Set by the rate-limit middleware once the request was counted. */
    rateLimit: RateLimitDecision | undefined;
    /** The code of the error response, for the access log (D16). */
    errorCode: string | undefined;
    /** An unexpected failure, kept for the access log (never sent to the client). */
    failure: Error | undefined;
  };
}
