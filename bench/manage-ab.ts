/**
 * Two builds' write routes side by side, for a ratio on a shared machine: the reference server of
 * each build (its own fresh database, pool of 10, limits raised) in this process, and a load process
 * that drives them in turns, slices of AB_SLICE_MS (default 1500) of AB_CONNECTIONS (default 16)
 * keep-alive connections, AB_ROUNDS (default 8) rounds, the order swapped each round, so both builds
 * see the same machine. `PATCH /api/v1/devices/{id}` (a device per connection) and `POST
 * /api/v1/devices` (a fresh `Idempotency-Key` each); the first 200 ms of a slice are not counted.
 * Not a `*.bench.ts` (`bench/run.ts` does not run it): it needs two built checkouts.
 *
 * Run: `npx tsx bench/manage-ab.ts postgres://postgres@127.0.0.1:5432/test /path/to/build-a /path/to/build-b`
 * (each path a built checkout of this repository). Prints p50 / p99 per build and B ÷ A at p50.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
const N = Number(process.env.AB_CONNECTIONS ?? 16);
const SLICE_MS = Number(process.env.AB_SLICE_MS ?? 1500);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 8);
type Target = { url: string; key: string; devices: number[] };
const scenarios: Record<
  string,
  (t: Target, c: number, n: number, tag: string) => { method: string; path: string; body: unknown; idem: boolean }
> = {
  patch: (t, c, n) => ({ method: 'PATCH', path: `/api/v1/devices/${t.devices[c]}`, body: { name: `Truck ${c}-${n}` }, idem: false }),
  post: (_t, c, n, tag) => ({
    method: 'POST',
    path: '/api/v1/devices',
    body: {
      name: `New ${c}-${n}`,
      imei: `${tag}${String(c).padStart(2, '0')}${String(n).padStart(11, '0')}`,
      model: 'FMB920',
      timezone: 'Europe/Berlin',
    },
    idem: true,
  }),
};
if (process.env.AB_ROLE === 'load') {
  const targets = JSON.parse(process.env.AB_TARGETS!) as Target[];
  const lat: Record<string, number[][]> = {};
  const counter = [0, 0];
  for (const name of Object.keys(scenarios)) {
    lat[name] = targets.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const which of order) {
        const t = targets[which]!;
        let stop = false;
        const started = performance.now();
        const warm = started + 200;
        await Promise.all(
          Array.from({ length: N }, async (_, c) => {
            while (!stop) {
              const n = ++counter[which]!;
              const r = scenarios[name]!(t, c, n, String(which + 8));
              const headers: Record<string, string> = { Authorization: `Bearer ${t.key}`, 'Content-Type': 'application/json' };
              if (r.idem) headers['Idempotency-Key'] = randomUUID();
              const t0 = performance.now();
              const res = await fetch(`${t.url}${r.path}`, { method: r.method, headers, body: JSON.stringify(r.body) });
              await res.arrayBuffer();
              if (res.status >= 300) throw new Error(`status ${res.status}`);
              if (t0 > warm) lat[name]![which]!.push(performance.now() - t0);
              if (performance.now() - started > SLICE_MS) stop = true;
            }
          }),
        );
      }
    }
  }
  process.stdout.write(JSON.stringify(lat));
} else {
  const [adminUrl, ...roots] = process.argv.slice(2) as [string, string, string];
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const targets: Target[] = [];
  const closers: (() => Promise<void>)[] = [];
  for (const [index, root] of roots.entries()) {
    const core = await import(`${root}/packages/core/dist/index.js`);
    const server = await import(`${root}/packages/server/dist/index.js`);
    const storage = await import(`${root}/packages/storage-kysely/dist/index.js`);
    const name = `fh_ab_${process.pid}_${index}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const db = storage.createPostgresDatabase({ connectionString: url.href, max: 2 });
    await storage.migrateToLatest(db);
    const store = storage.createKyselyStore(db);
    const now = Math.floor(Date.now() / 1000);
    const account = await store.createAccount({ name: 'Bench', plan: 'business', now });
    const key = core.generateApiKey();
    await store.createApiKey({
      accountId: account.id,
      fingerprint: await core.fingerprintApiKey(key),
      label: 'b',
      expiresAt: null,
      now,
      scope: 'manage',
    });
    const devices: number[] = [];
    for (let c = 0; c < N; c++)
      devices.push(
        (
          await store.createDevice({
            accountId: account.id,
            name: `T${c}`,
            imei: String(100_000_000_000_000 + c),
            model: 'FMB920',
            timeZone: 'Europe/Berlin',
          })
        ).id,
      );
    await db.destroy();
    const srv = await server.startServer({
      database: { kind: 'postgres', url: url.href },
      port: 0,
      rateLimits: { writes: 1e9, hours: 1e9, unauthenticated: 1e9 },
      log: () => {},
    });
    targets.push({ url: srv.url, key, devices });
    closers.push(async () => {
      await srv.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
    });
  }
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, AB_ROLE: 'load', AB_TARGETS: JSON.stringify(targets) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise((r) => child.on('exit', r));
  const lat = JSON.parse(out) as Record<string, number[][]>;
  const q = (xs: number[], p: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  };
  for (const [name, per] of Object.entries(lat)) {
    const [a, b] = per.map((xs) => ({ p50: q(xs, 0.5), p99: q(xs, 0.99), n: xs.length }));
    console.log(
      `${name}: A p50 ${a!.p50.toFixed(1)} p99 ${a!.p99.toFixed(1)} (${a!.n})  B p50 ${b!.p50.toFixed(1)} p99 ${b!.p99.toFixed(1)} (${b!.n})  B/A p50 ${(b!.p50 / a!.p50).toFixed(2)}`,
    );
  }
  for (const close of closers) await close();
  await admin.end();
}
