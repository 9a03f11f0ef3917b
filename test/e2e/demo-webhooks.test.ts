import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCliServer } from '../support/cli.js';
import { startWebhookReceiver, waitFor } from '../support/webhook-receiver.js';

const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-demo-webhooks-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('fleet-hours demo --webhook-url (D48: the allowing setting on the demo too)', { timeout: 120_000 }, () => {
  it('D48: with --webhook-allow-private-addresses on, the demo delivers its events, signed, to a receiver on 127.0.0.1', async () => {
    const receiver = await startWebhookReceiver({ answers: { '/hooks': () => ({ status: 204 }) } });
    const args = ['demo', '--port', '0', '--json', '--webhook-url', receiver.url('/hooks'), '--webhook-allow-private-addresses', 'on'];
    const demo = await startCliServer(args, (stdout) => (stdout.endsWith('}\n') ? stdout : null), { cwd: work });
    try {
      const printed = JSON.parse(demo.stdout()) as { webhook: { url: string; secret: string; events: string[] } };
      expect(printed.webhook).toMatchObject({ url: receiver.url('/hooks'), events: expect.arrayContaining(['service.overdue']) });
      receiver.trust('/hooks', printed.webhook.secret);
      // The demo fleet has a vehicle overdue and three due soon on its first start: their events arrive.
      await waitFor(() => receiver.received.some((request) => request.type === 'service.overdue'), 'the overdue event', 60_000);
      expect(receiver.received.every((request) => request.verified && !request.verifiedWithWrongSecret)).toBe(true);
      expect(demo.stderr()).not.toContain('refused');
    } finally {
      const stopped = await demo.stop();
      await receiver.close();
      expect(stopped.code).toBe(0);
    }
  });
});
