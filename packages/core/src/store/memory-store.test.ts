import { describe, expect, it } from 'vitest';
import { describeStorageContract } from '../testing/index.js';
import { createMemoryStore } from './memory-store.js';

// The memory store offers the batch capabilities of the fleet pages (D32), not the single-device ones, and units (P102).
describeStorageContract('memory', {
  makeStore: createMemoryStore,
  capabilities: [
    'sumSegmentSecondsMany',
    'summarizeDeviceSegmentsMany',
    'listSegmentsMany',
    'listDevicePage',
    'findWorkCalendarsMany',
    'findDeviceWithDays',
    'atomically',
    'claimAempSource',
  ],
});

describe("the memory store's units (P103)", () => {
  it('P103: a write waits while a unit runs, a read does not, and a failed unit puts back its own writes only', async () => {
    const store = createMemoryStore();
    const first = await store.createAccount({ name: 'First', plan: 'business', now: 0 });
    let open!: () => void;
    const held = new Promise<void>((resolve) => {
      open = resolve;
    });
    const failure = new Error('the unit fails');
    const unit = store.atomically!(async (inside) => {
      await inside.setAccountPlan({ accountId: first.id, plan: 'starter' });
      await held;
      throw failure;
    });
    let written = false;
    const write = store.createAccount({ name: 'Second', plan: 'business', now: 0 }).then((account) => {
      written = true;
      return account;
    });
    // The read answers at once, the write waits for the unit.
    expect((await store.listAccounts()).map((account) => account.name)).toEqual(['First']);
    expect(written).toBe(false);
    open();
    await expect(unit).rejects.toBe(failure);
    const second = await write;
    expect(await store.listAccounts()).toEqual([first, second]);
  });
});
