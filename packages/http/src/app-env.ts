import type { IncomingMessage } from 'node:http';
import type { Admission, RoutePolicy } from '@fleet-hours/core/adapter';

/** The Hono environment of the Fleet Hours app: the per-request variables its middleware share. */
export interface FleetHoursEnv {
  /** Under Node (`serve`), `@hono/node-server`'s bindings; absent in `app.request()` and on other runtimes. */
  Bindings: { readonly incoming?: IncomingMessage } | undefined;
  Variables: {
    /** Set by the request-id middleware. */
    requestId: string;
    /** The client address, resolved once per request (D14). */
    clientAddress: string;
    /** The policy of the route the request reached, set by the access middleware before anything else. */
    route: RoutePolicy | undefined;
    /** What the access middleware decided (core's `admitRequest`). */
    admission: Admission | undefined;
    /** The code of the error response, for the access log (D16). */
    errorCode: string | undefined;
    /** An unexpected failure, kept for the access log (never sent to the client). */
    failure: Error | undefined;
    /** Set by the access log: logs a streamed answer cut short after its headers were sent (P117). */
    streamFailed: ((error: unknown) => void) | undefined;
  };
}
