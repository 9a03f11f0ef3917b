import { isFleetHoursError } from '../errors/errors.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { InvalidTelemetryPointError } from '../telemetry/telemetry-point.js';
import type { DeviceTelemetryPoint, TelemetryWriteResult } from '../types.js';

/** One position of a single-position request (a Traccar forward, an OsmAnd report), named by its device's IMEI. */
export interface PositionWrite {
  readonly accountId: number;
  readonly point: DeviceTelemetryPoint & { readonly imei: string };
  /** The server's clock when the request was read, epoch seconds (D26). */
  readonly now: number;
}

/**
 * Writes at most this many batches of one account at a time; positions that arrive meanwhile wait
 * and go in the next batch together. With 2, a server under a stream of single positions keeps a
 * write in the database while the next batch gathers, and a lone position never waits.
 */
export const POSITION_WRITES_IN_FLIGHT = 2;

/** Positions in one batch at most: far below the native endpoint's 10,000, so that a batch stays short. */
export const POSITION_BATCH_MAX = 500;

/**
 * Single positions gathered into shared writes (P34, D20). A Traccar server forwards every position in
 * a request of its own: written one by one, each costs a transaction (lock, read, write, commit)
 * however small. Here a position is written at once while fewer than
 * {@link POSITION_WRITES_IN_FLIGHT} writes of its account run; otherwise it waits for one of them
 * to end and goes in the next batch with every other position waiting then (at most one per device,
 * and {@link POSITION_BATCH_MAX}), in one `writeTelemetry` call. Each request is answered only when
 * its batch is committed, with its device's share of the store's answer — one position per device
 * in a batch makes that share the request's own. Order does not matter (D20: any split, order or
 * repetition of the same points gives the same segments).
 *
 * A batch the store refuses because of a position (a 4xx) never fails the others: a refusal that
 * names its position (an unknown device — a Traccar server forwards every device it has, registered
 * here or not — or a point too far ahead) takes that position out, to be written alone for its own
 * answer, and the rest goes again as one batch; any other refusal (an overlap with imported
 * segments) has the batch written again position by position, one after another. Every retry
 * stays within the batch's turn, so an account never has more than
 * {@link POSITION_WRITES_IN_FLIGHT} writes running. Any other failure (a database that does not
 * answer: 503) fails the batch's requests and every request waiting behind them at once, without
 * retrying, so that they are answered within the deadline (D28).
 */
export class PositionBatcher {
  readonly #store: FleetHoursStore;
  readonly #accounts = new Map<number, { inFlight: number; waiting: _Waiting[] }>();

  constructor(store: FleetHoursStore) {
    this.#store = store;
  }

  /**
   * Writes a position, alone or in a batch, and resolves once it is committed with the store's
   * answer as if it had been written alone: its device's entry and that device's share of the counts.
   */
  write(position: PositionWrite): Promise<TelemetryWriteResult> {
    return new Promise((resolve, reject) => {
      let account = this.#accounts.get(position.accountId);
      if (!account) this.#accounts.set(position.accountId, (account = { inFlight: 0, waiting: [] }));
      account.waiting.push({ position, resolve, reject });
      if (account.inFlight < POSITION_WRITES_IN_FLIGHT) this.#next(position.accountId);
    });
  }

  /** Starts the account's next batch from the positions waiting, if any. */
  #next(accountId: number): void {
    const account = this.#accounts.get(accountId);
    if (!account) return;
    if (account.waiting.length === 0) {
      if (account.inFlight === 0) this.#accounts.delete(accountId);
      return;
    }
    const batch: _Waiting[] = [];
    const rest: _Waiting[] = [];
    const devices = new Set<string>();
    for (const waiting of account.waiting) {
      if (batch.length < POSITION_BATCH_MAX && !devices.has(waiting.position.point.imei)) {
        devices.add(waiting.position.point.imei);
        batch.push(waiting);
      } else rest.push(waiting);
    }
    account.waiting = rest;
    account.inFlight += 1;
    void this.#run(accountId, batch).finally(() => {
      account.inFlight -= 1;
      this.#next(accountId);
    });
  }

  async #run(accountId: number, batch: readonly _Waiting[]): Promise<void> {
    const pending = [...batch];
    while (pending.length > 0) {
      try {
        const answer = await this.#writeBatch(accountId, pending);
        for (const waiting of pending) _settle(waiting, answer);
        return;
      } catch (error) {
        if (!_refusesAPosition(error)) {
          // The database failed (D18, D28): the batch's requests and those waiting behind it are
          // answered now, rather than each waiting out a deadline of its own.
          for (const waiting of pending) waiting.reject(error);
          this.#failWaiting(accountId, error);
          return;
        }
        if (pending.length === 1) {
          pending[0]!.reject(error);
          return;
        }
        const named = _positionNamed(error, pending.length);
        if (named === null) {
          // A refusal that names no position: each on its own, one after another (this batch's
          // turn is still the only write it holds), so that only the refused request fails.
          for (const waiting of pending) await this.#writeAlone(accountId, waiting);
          return;
        }
        // The store named the refused position (an unknown device, a point too far ahead): it is
        // written alone, for its own answer, and the others go again as one batch.
        const [refused] = pending.splice(named, 1);
        await this.#writeAlone(accountId, refused!);
      }
    }
  }

  /** Writes one position on its own and answers its request, whatever the outcome. */
  async #writeAlone(accountId: number, waiting: _Waiting): Promise<void> {
    try {
      _settle(waiting, await this.#writeBatch(accountId, [waiting]));
    } catch (error) {
      waiting.reject(error);
    }
  }

  /** Fails every position of the account still waiting. */
  #failWaiting(accountId: number, error: unknown): void {
    const account = this.#accounts.get(accountId);
    if (!account) return;
    const waiting = account.waiting;
    account.waiting = [];
    for (const request of waiting) request.reject(error);
  }

  #writeBatch(accountId: number, batch: readonly _Waiting[]): Promise<TelemetryWriteResult> {
    let now = -Infinity;
    for (const { position } of batch) now = Math.max(now, position.now);
    return this.#store.writeTelemetry({ accountId, points: batch.map(({ position }) => position.point), now });
  }
}

interface _Waiting {
  readonly position: PositionWrite;
  readonly resolve: (answer: TelemetryWriteResult) => void;
  readonly reject: (error: unknown) => void;
}

/** Answers a request with its device's share of the batch's answer. */
function _settle(waiting: _Waiting, answer: TelemetryWriteResult): void {
  const device = answer.devices.find((entry) => entry.imei === waiting.position.point.imei);
  if (!device) waiting.reject(new Error(`The store's answer names no device with IMEI ${waiting.position.point.imei}`));
  else waiting.resolve({ accepted: device.accepted, duplicates: device.duplicates, devices: [device] });
}

/** Whether a batch was refused because of one of its positions (a 4xx), rather than failing as a whole. */
function _refusesAPosition(error: unknown): boolean {
  return error instanceof InvalidTelemetryPointError || (isFleetHoursError(error) && error.status < 500);
}

/** The position of the batch a refusal names by its index (`UnknownDeviceError`, `InvalidTelemetryPointError`), or `null`. */
function _positionNamed(error: unknown, size: number): number | null {
  const index = (error as { index?: unknown }).index;
  return typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < size ? index : null;
}
