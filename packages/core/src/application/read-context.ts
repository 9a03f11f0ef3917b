import type { FleetHoursStore } from '../store/storage-port.js';
import type { WindowLimits } from '../window/resolve-window.js';
import type { StoreSums } from './store-sums.js';
import type { ZoneCache } from './zone-cache.js';

/** What the reads of one service share: its store, its window limits, its clock in epoch seconds, the store's sums and the zones it remembers. */
export interface ReadContext {
  readonly store: FleetHoursStore;
  readonly window: WindowLimits | undefined;
  readonly nowSeconds: () => number;
  readonly sums: StoreSums;
  readonly zones: ZoneCache;
}

/** The fields of each query, as `checkArguments` checks them for callers the compiler did not check. */
export const WINDOW_QUERY = { accountId: 'id', deviceId: 'id', from: 'date?', to: 'date?' } as const;
export const FLEET_PAGE_QUERY = { accountId: 'id', limit: 'limit?', cursor: 'cursor?', tag: 'tag?' } as const;
export const FLEET_WINDOW_QUERY = { ...FLEET_PAGE_QUERY, from: 'date?', to: 'date?' } as const;
