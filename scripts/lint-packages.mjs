#!/usr/bin/env node
// Checks every publishable package as a consumer will see it: packs it with `npm pack` (so the
// `prepack` LICENSE copy runs, as on publish), then lints the tarball with publint (any message,
// suggestions included, fails) and with `@arethetypeswrong/cli` (types per condition, node10
// subpaths). Works offline. Needs a fresh build: `npm test` runs it right after `npm run build`.
//
//   node scripts/lint-packages.mjs            every non-private workspace under packages/
//   node scripts/lint-packages.mjs core http  only those (directory names)
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const attwBin = join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');

// Packages that ship ESM only, on purpose: attw checks them with its `esm-only` profile, which
// skips the node10 and `require` resolutions. Every other package must pass the strict profile.
const ESM_ONLY = new Set(['@fleet-hours/server']);

const rootPkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const only = process.argv.slice(2);
const dirs = rootPkg.workspaces.filter(
  (dir) => dir.startsWith('packages/') && (only.length === 0 || only.includes(dir.slice('packages/'.length))),
);
const license = await readFile(join(root, 'LICENSE'), 'utf8');

/** @param {Buffer} bytes */
const toArrayBuffer = (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

const started = performance.now();
const out = await mkdtemp(join(tmpdir(), 'fleet-hours-pack-'));
const failures = [];
try {
  for (const dir of dirs) {
    const pkgDir = join(root, dir);
    const pkg = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8'));
    if (pkg.private) continue;
    const problems = [];

    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', out], { cwd: pkgDir });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
    const tarball = join(out, packed.filename);
    const files = new Set(packed.files.map((file) => file.path));
    for (const required of ['LICENSE', 'README.md', 'package.json']) {
      if (!files.has(required)) problems.push(`the tarball has no "${required}"`);
    }

    const { messages, pkg: packedPkg } = await publint({
      pack: { tarball: toArrayBuffer(await readFile(tarball)) },
      level: 'suggestion',
      strict: true,
    });
    for (const message of messages) {
      problems.push(`publint ${message.type}: ${formatMessage(message, packedPkg, { color: false })}`);
    }

    const profile = ESM_ONLY.has(pkg.name) ? 'esm-only' : 'strict';
    try {
      await run(process.execPath, [attwBin, tarball, '--profile', profile, '--no-definitely-typed', '--format', 'ascii', '--no-color'], {
        cwd: pkgDir,
      });
    } catch (error) {
      problems.push(`attw (${profile} profile) reported problems:\n${error.stdout || error.message}`);
    }

    if (files.has('LICENSE')) {
      const { stdout: shipped } = await run('tar', ['-xOzf', tarball, 'package/LICENSE']);
      if (shipped !== license) problems.push('the packed LICENSE differs from the root LICENSE');
    }

    if (problems.length === 0) {
      console.log(`ok   ${pkg.name} (${files.size} files, attw ${profile})`);
    } else {
      console.log(`FAIL ${pkg.name}`);
      for (const problem of problems) console.log(`  - ${problem}`);
      failures.push(pkg.name);
    }
  }
} finally {
  await rm(out, { recursive: true, force: true });
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (failures.length > 0) {
  console.error(`lint:packages: ${failures.length} package(s) failed: ${failures.join(', ')} (${seconds} s)`);
  process.exitCode = 1;
} else {
  console.log(`lint:packages: every package passed publint and attw (${seconds} s)`);
}
