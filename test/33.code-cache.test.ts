/**
 * Layer 33: V8's code cache of nodecuda's own modules (lib/cuda/code_cache.ts; no GPU needed).
 * Each case runs the built package (dist/, `npm test` builds it first) in fresh Node processes
 * against a temporary cache directory: who writes the file and when, that a process loads every
 * module from it, that other flags get their own file, that damaged, stale, foreign and unsafe
 * files are compiled around (never a failure), the switches that turn it off, and clearCache.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const DIST = path.join(__dirname, '..', 'dist');
const MAGIC = 'NCV8CODE';
interface Status { enabled: boolean; modules: number; loaded: number; rejected: number; stale: boolean }

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-33-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const freshDir = () => {
  const d = fs.mkdtempSync(path.join(tmp, 'c-'));
  fs.chmodSync(d, 0o700);
  return d;
};

// A kernel key every process of these tests notes as built (a process that builds none writes nothing).
const BASE = '0'.repeat(64);

/** One process: loads nodecuda, notes `kernels` as built, prints the code cache's status. */
function run(dir: string, opts: { kernels?: string[]; flags?: string[]; env?: Record<string, string> } = {}): Status {
  const script = `const c = require(${JSON.stringify(DIST)});
    const cc = require(${JSON.stringify(path.join(DIST, 'cuda', 'code_cache.js'))});
    if (typeof c.gpuarray.zeros !== 'function') throw new Error('nodecuda did not load');
    for (const k of ${JSON.stringify(opts.kernels ?? [BASE])}) cc.noteKernel(k);
    console.log(JSON.stringify(cc.codeCacheStatus()));`;
  const env: Record<string, string | undefined> = { ...process.env, NODECUDA_CACHE_DIR: dir, ...opts.env };
  for (const k of ['NODE_OPTIONS', 'NODECUDA_CODE_CACHE', 'NODECUDA_CACHE', 'NODECUDA_CACHE_MAX_BYTES']) {
    if (!opts.env || !(k in opts.env)) delete env[k];
  }
  const r = spawnSync(process.execPath, [...(opts.flags ?? []), '-e', script], { env, encoding: 'utf8', timeout: 60000 });
  if (r.status !== 0) throw new Error(`child exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as Status;
}

const files = (dir: string) => fs.readdirSync(dir).filter((f) => f.startsWith('v8-code-cache')).sort();
const onlyFile = (dir: string) => {
  const f = files(dir);
  expect(f).toHaveLength(1);
  expect(f[0]).toMatch(/^v8-code-cache-[0-9a-f]{16}\.bin$/);
  return path.join(dir, f[0]);
};
interface Head { modules: Array<[string, number[], number]>; kernels: string[]; node: string; writes: number; time: number }
function header(file: string): Head {
  const buf = fs.readFileSync(file);
  expect(buf.toString('latin1', 0, MAGIC.length)).toBe(MAGIC);
  const n = buf.readUInt32LE(MAGIC.length);
  return JSON.parse(buf.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + n));
}

test('the first process writes the file (mode 0600); the next loads every module from it and writes nothing', () => {
  const dir = freshDir();
  const first = run(dir);
  expect(first).toMatchObject({ enabled: true, loaded: 0, rejected: 0, stale: true });
  expect(first.modules).toBeGreaterThan(40);
  const file = onlyFile(dir);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const h = header(file);
  expect(h.node).toBe(process.version);
  expect(h.modules.map((m) => m[0])).toContain(path.join('cuda', 'compiler.js'));
  expect(h.modules.every(([, stamp, len]) => stamp.length === 4 && stamp.every((v) => v > 0) && len > 0)).toBe(true);
  expect(h.writes).toBe(1);
  const bytes = fs.readFileSync(file);
  const second = run(dir);
  expect(second).toEqual({ enabled: true, modules: first.modules, loaded: first.modules, rejected: 0, stale: false });
  expect(fs.readFileSync(file).equals(bytes)).toBe(true);
});

test('a kernel the writer did not build makes the process rewrite the file at exit; a known one does not', () => {
  const dir = freshDir();
  run(dir);
  const file = onlyFile(dir);
  const k1 = 'a'.repeat(64);
  const k2 = 'b'.repeat(64);
  const before = fs.readFileSync(file);
  expect(run(dir, { kernels: [k1] }).stale).toBe(false);
  const afterK1 = fs.readFileSync(file);
  expect(afterK1.equals(before)).toBe(false);
  expect(header(file).kernels).toEqual([BASE.slice(0, 16), k1.slice(0, 16)]);
  run(dir, { kernels: [k1] });
  expect(fs.readFileSync(file).equals(afterK1)).toBe(true);
  run(dir, { kernels: [k1, k2] });
  expect(header(file).kernels).toEqual([BASE, k1, k2].map((k) => k.slice(0, 16)));
  expect(header(file).writes).toBe(3);
  expect(run(dir).loaded).toBeGreaterThan(40);
  expect(files(dir)).toEqual([path.basename(file)]); // processes of other -e scripts share the file
});

test('processes with other Node flags get their own file: neither overwrites the other', () => {
  const dir = freshDir();
  const plain = run(dir);
  const file = onlyFile(dir);
  const bytes = fs.readFileSync(file);
  expect(run(dir, { flags: ['--no-opt'] }).loaded).toBe(0);
  expect(files(dir)).toHaveLength(2);
  expect(run(dir, { flags: ['--no-opt'] })).toMatchObject({ loaded: plain.modules, rejected: 0, stale: false });
  expect(run(dir)).toMatchObject({ loaded: plain.modules, rejected: 0, stale: false });
  expect(fs.readFileSync(file).equals(bytes)).toBe(true);
});

test('damaged, truncated and stale files are compiled around, never a failure, and replaced', () => {
  const dir = freshDir();
  const { modules } = run(dir);
  const file = onlyFile(dir);
  const good = fs.readFileSync(file);
  // Garbage of the right magic, a header that is not JSON.
  fs.writeFileSync(file, Buffer.concat([Buffer.from(MAGIC), Buffer.from([9, 0, 0, 0]), Buffer.from('{not json')]), { mode: 0o600 });
  expect(run(dir)).toMatchObject({ loaded: 0, stale: true });
  expect(run(dir)).toMatchObject({ loaded: modules, rejected: 0 });
  // Cut in half: the modules whose data is missing compile as usual.
  fs.writeFileSync(file, good.subarray(0, good.length >> 1), { mode: 0o600 });
  const cut = run(dir);
  expect(cut.loaded).toBeLessThan(modules);
  expect(cut.stale).toBe(true);
  expect(run(dir).loaded).toBe(modules);
  // Data that V8 refuses (bytes flipped inside every module's cache): rejected, then rewritten.
  const flipped = Buffer.from(fs.readFileSync(file));
  const h = header(file);
  let off = MAGIC.length + 4 + flipped.readUInt32LE(MAGIC.length);
  for (const [, , len] of h.modules) {
    for (let i = 0; i < 16; i++) flipped[off + 8 + i] ^= 0xff;
    off += len;
  }
  fs.writeFileSync(file, flipped, { mode: 0o600 });
  const refused = run(dir);
  expect(refused.loaded).toBe(0);
  expect(refused.rejected).toBe(modules);
  expect(run(dir).loaded).toBe(modules);
  // A module whose mtime differs from the file's record (a rebuilt package): that one compiles.
  const rec = header(file);
  rec.modules[0][1][1] += 1000; // the mtime
  const body = fs.readFileSync(file).subarray(MAGIC.length + 4 + fs.readFileSync(file).readUInt32LE(MAGIC.length));
  const head = Buffer.from(JSON.stringify(rec));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length);
  fs.writeFileSync(file, Buffer.concat([Buffer.from(MAGIC), len, head, body]), { mode: 0o600 });
  expect(run(dir)).toMatchObject({ loaded: modules - 1, rejected: 0, stale: true });
  expect(run(dir)).toMatchObject({ loaded: modules, stale: false });
  // A record that is not a stamp: that module compiles without the data, and the file is rewritten.
  editHeader(file, (h) => {
    (h.modules[0] as unknown[])[1] = null;
  });
  expect(run(dir)).toMatchObject({ modules, loaded: modules - 1, stale: true });
  expect(run(dir)).toMatchObject({ loaded: modules, stale: false });
});

test('a file others can write is not read, and is replaced by one only the user can write', () => {
  const dir = freshDir();
  const { modules } = run(dir);
  const file = onlyFile(dir);
  fs.chmodSync(file, 0o666);
  expect(run(dir)).toMatchObject({ loaded: 0, stale: true });
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(run(dir).loaded).toBe(modules);
});

test('a configured directory others can write: nothing read or written there, nodecuda still loads', () => {
  const dir = freshDir();
  run(dir);
  fs.chmodSync(dir, 0o777);
  try {
    expect(run(dir)).toMatchObject({ enabled: true, loaded: 0 });
    const other = fs.mkdtempSync(path.join(tmp, 'open-'));
    fs.chmodSync(other, 0o777);
    run(other);
    expect(files(other)).toEqual([]);
  } finally {
    fs.chmodSync(dir, 0o700);
  }
});

test.each([
  ['NODECUDA_CODE_CACHE=0', { env: { NODECUDA_CODE_CACHE: '0' } }],
  ['NODECUDA_CACHE=0', { env: { NODECUDA_CACHE: '0' } }],
  ['NODECUDA_CACHE_MAX_BYTES=0', { env: { NODECUDA_CACHE_MAX_BYTES: '0' } }],
  ['NODECUDA_CACHE_MAX_BYTES=junk (the compiler reports it)', { env: { NODECUDA_CACHE_MAX_BYTES: 'junk' } }],
  ['--enable-source-maps (Node maps stack traces in its own compile)', { flags: ['--enable-source-maps'] }],
])('off with %s: no file, nodecuda loads as usual', (_name, opts) => {
  const dir = freshDir();
  expect(run(dir, opts)).toMatchObject({ enabled: false, modules: 0, loaded: 0 });
  expect(files(dir)).toEqual([]);
});

test('compiler.clearCache() removes the code cache files with the kernels', () => {
  const dir = freshDir();
  run(dir);
  run(dir, { flags: ['--no-opt'] });
  expect(files(dir)).toHaveLength(2);
  fs.writeFileSync(path.join(dir, 'unrelated.txt'), 'x');
  const script = `console.log(require(${JSON.stringify(DIST)}).compiler.clearCache(${JSON.stringify(dir)}))`;
  const r = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, NODECUDA_CODE_CACHE: '0' }, encoding: 'utf8', timeout: 60000,
  });
  expect(r.status).toBe(0);
  expect(Number(r.stdout.trim())).toBe(2);
  expect(fs.readdirSync(dir)).toEqual(['unrelated.txt']);
});

test('stack traces name the module files and lines as without the cache', () => {
  const dir = freshDir();
  run(dir);
  const script = `try { require(${JSON.stringify(DIST)}).gpuarray.zeros([-1]); } catch (e) { console.log(e.stack); }`;
  const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, NODECUDA_CACHE_DIR: dir }, encoding: 'utf8' });
  const uncached = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, NODECUDA_CACHE_DIR: dir, NODECUDA_CODE_CACHE: '0' }, encoding: 'utf8',
  });
  expect(r.stdout).toMatch(/RangeError: shape\[0\] must be a non-negative integer/);
  expect(r.stdout).toMatch(new RegExp(`at .*${path.join('dist', 'base', 'shape.js').replace(/[.\\/]/g, '\\$&')}:\\d+:\\d+`));
  const frames = (s: string) => s.split('\n').filter((l) => l.includes(DIST)).map((l) => l.replace(/:\d+\)?$/, ''));
  expect(frames(r.stdout)).toEqual(frames(uncached.stdout));
});

test('evaluated again (a test runner gives each test file its own registry): one loader, one exit listener', () => {
  const dir = freshDir();
  const file = JSON.stringify(path.join(DIST, 'cuda', 'code_cache.js'));
  const script = `const Module = require('module');
    require(${file}); const loader = Module._extensions['.js']; const exits = process.listenerCount('exit');
    for (const k of Object.keys(require.cache)) delete require.cache[k];
    require(${file}); require(${JSON.stringify(DIST)});
    console.log(JSON.stringify([Module._extensions['.js'] === loader, process.listenerCount('exit') - exits]));`;
  const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, NODECUDA_CACHE_DIR: dir }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(JSON.parse(r.stdout.trim())).toEqual([true, 0]);
});

/** Rewrites the file's header with `edit` applied. */
function editHeader(file: string, edit: (h: Head) => void): void {
  const buf = fs.readFileSync(file);
  const n = buf.readUInt32LE(MAGIC.length);
  const h = header(file);
  edit(h);
  const head = Buffer.from(JSON.stringify(h));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length);
  fs.writeFileSync(file, Buffer.concat([Buffer.from(MAGIC), len, head, buf.subarray(MAGIC.length + 4 + n)]), { mode: 0o600 });
}

test('a process that builds no kernel writes nothing; after 8 writes new kernels rewrite at most every 10 minutes', () => {
  const dir = freshDir();
  run(dir, { kernels: [] });
  expect(files(dir)).toEqual([]);
  run(dir);
  const file = onlyFile(dir);
  editHeader(file, (h) => {
    h.writes = 8;
    h.time = Date.now();
  });
  const bytes = fs.readFileSync(file);
  run(dir, { kernels: ['c'.repeat(64)] });
  expect(fs.readFileSync(file).equals(bytes)).toBe(true); // written 8 times, the last just now
  editHeader(file, (h) => {
    h.time = Date.now() - 11 * 60 * 1000;
  });
  run(dir, { kernels: ['c'.repeat(64)] });
  expect(header(file)).toMatchObject({ writes: 9, kernels: [BASE.slice(0, 16), 'c'.repeat(16)] });
});

test('at most 4 code cache files (flag sets) stay in a directory: the least recently used go', () => {
  const dir = freshDir();
  for (let i = 0; i < 6; i++) run(dir, { flags: [`--stack-size=${900 + i}`] });
  expect(files(dir)).toHaveLength(4);
  expect(run(dir, { flags: ['--stack-size=905'] }).loaded).toBeGreaterThan(40); // the newest kept
  expect(run(dir, { flags: ['--stack-size=900'] }).loaded).toBe(0); // the oldest removed
});

test('off under --experimental-policy (Node checks each module\'s integrity in its own compile)', () => {
  const dir = freshDir();
  const policy = path.join(dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({ onerror: 'log', resources: {} }));
  expect(run(dir, { flags: [`--experimental-policy=${policy}`], env: { NODE_NO_WARNINGS: '1' } }))
    .toMatchObject({ enabled: false, modules: 0 });
  expect(files(dir)).toEqual([]);
});

test('a transform that wraps module._compile (pirates, nyc) still sees every module; those compile without the cache', () => {
  const dir = freshDir();
  run(dir);
  const hook = `const Module = require('module'); const prior = Module._extensions['.js']; let seen = 0;
    Module._extensions['.js'] = function (m, f) {
      if (f.startsWith(${JSON.stringify(DIST)})) {
        const c = m._compile;
        m._compile = function (code, name) { seen++; m._compile = c; return c.call(this, code + '\\n// transformed', name); };
      }
      return prior.call(this, m, f);
    };`;
  for (const [order, script] of [['installed before nodecuda', `${hook} require(${JSON.stringify(DIST)});`],
    ['installed after', `require(${JSON.stringify(path.join(DIST, 'cuda', 'code_cache.js'))}); ${hook} require(${JSON.stringify(DIST)});`]]) {
    const r = spawnSync(process.execPath, ['-e', `${script}
      const s = require(${JSON.stringify(path.join(DIST, 'cuda', 'code_cache.js'))}).codeCacheStatus();
      console.log(JSON.stringify({ seen, modules: s.modules }));`], { env: { ...process.env, NODECUDA_CACHE_DIR: dir }, encoding: 'utf8' });
    expect({ order, status: r.status, stderr: r.stderr }).toEqual({ order, status: 0, stderr: '' });
    const out = JSON.parse(r.stdout.trim());
    expect(out.seen).toBeGreaterThan(40);
    expect(out.modules).toBeLessThanOrEqual(1); // what the transform changed went through Node's compile
  }
});

test('loaded by a test runner\'s registry (this Jest file): no loader, no exit listener is installed', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('../lib/cuda/code_cache');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { _extensions } = require('module') as { _extensions: object };
  expect(Object.getOwnPropertySymbols(_extensions).map(String).filter((k) => k.includes('nodecuda.codeCache'))).toEqual([]);
});
