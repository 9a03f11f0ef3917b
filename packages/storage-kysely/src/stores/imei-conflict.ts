import { ImeiInUseError } from '@fleet-hours/core';

/** The partial unique index of D25 (migration 0004): one active device per account and IMEI. */
const ACTIVE_IMEI_INDEX = 'devices_active_imei_key';

/**
 * Wraps a device write so that the database's refusal of a second active device with one IMEI in
 * an account (D25) becomes `ImeiInUseError` (`conflict`); every other error passes unchanged.
 */
export function refusingImeiConflict<T>(operation: () => Promise<T>): () => Promise<T> {
  return async () => {
    try {
      return await operation();
    } catch (error) {
      const { code, message, detail } = (error ?? {}) as { code?: unknown; message?: unknown; detail?: unknown };
      if (code !== '23505' || typeof message !== 'string' || !message.includes(ACTIVE_IMEI_INDEX)) throw error;
      // postgres.js and PGlite both carry PostgreSQL's detail: `Key (account_id, imei)=(1, 3500…) already exists.`
      const imei = typeof detail === 'string' ? /^Key \(account_id, imei\)=\(\d+, (.*)\) already exists\.?$/s.exec(detail)?.[1] : undefined;
      throw new ImeiInUseError(imei ?? '');
    }
  };
}
