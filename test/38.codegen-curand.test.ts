/**
 * cuRAND device-API kernels (lib/engine/templates/curand.ts) compile with NVRTC against the toolkit's
 * curand_kernel.h (no GPU needed): every kernel of every generator kind, sm_75 PTX and sm_90 CUBIN.
 * curand_kernel.h is large (its precalculated skip-ahead tables): a module takes seconds to compile,
 * which is why lib/random/curandom.ts compiles each kind once per process and the disk cache keeps it.
 * Also: cuRAND's Sobol32 tables read through libcurand (dlopen, no GPU) and the error paths.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compiler } from '../lib';
import { curandTable, sobolRows } from '../lib/random/curandom';
import { curandIncludeDir, curandIncludeDirs } from '../lib/random/curand_sequence';
import { CURAND_FILLS, CURAND_STATES, CurandKind, curandKernelName, curandSource } from '../lib/engine/templates/curand';

const KINDS = Object.keys(CURAND_STATES) as CurandKind[];
const DIST = path.resolve(__dirname, '..', 'dist');
let tmp: string;
beforeAll(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-38-')); });
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('cuRAND kernels compile (NVRTC, curand_kernel.h, no GPU)', () => {
  test.each(KINDS)('%s: every kernel, sm_75 PTX and sm_90 CUBIN', (kind) => {
    const includeDirs = curandIncludeDirs();
    const { source, names } = curandSource(kind);
    expect(new Set(names).size).toBe(names.length);
    // The kernel set: every fill (pairs for the pseudo-random kinds only), init and skip-ahead.
    const pseudo = CURAND_STATES[kind].pseudo;
    for (const [fill, info] of Object.entries(CURAND_FILLS)) {
      expect(names.includes(curandKernelName(kind, fill))).toBe(!info.pseudoOnly || pseudo);
    }
    for (const k of ['init', 'skip_ahead', 'skip_ahead_array']) expect(names).toContain(curandKernelName(kind, k));
    expect(names.includes(curandKernelName(kind, 'skip_ahead_sequence'))).toBe(pseudo);
    expect(names.includes(curandKernelName(kind, 'skip_ahead_subsequence'))).toBe(kind === 'mrg32k3a');
    const opts = { noExternC: true, options: ['--std=c++17'], includeDirs, cacheDir: path.join(tmp, kind) };
    const ptx = Buffer.from(compiler.compile(source, { ...opts, arch: 'sm_75', target: 'ptx' }).image).toString('utf8');
    for (const name of names) expect(ptx).toContain(`.entry ${name}(`);
    const cubin = Buffer.from(compiler.compile(source, { ...opts, arch: 'sm_90' }).image);
    for (const name of names) expect(cubin.includes(Buffer.from(`${name}\0`))).toBe(true);
  }, 300000);

  test('a wrong state size is caught at compile time (static_assert)', () => {
    const { source } = curandSource('xorwow');
    const bad = source.replace('sizeof(curandStateXORWOW) == 48', 'sizeof(curandStateXORWOW) == 44');
    expect(() => compiler.compile(bad, { arch: 'sm_90', target: 'ptx', noExternC: true, options: ['--std=c++17'],
      includeDirs: curandIncludeDirs(), cacheDir: path.join(tmp, 'bad') })).toThrow(/unexpected size of curandStateXORWOW/);
  }, 300000);

  test('missing headers: ERR_CURAND_HEADERS naming the directories searched', () => {
    const roots = [path.join(tmp, 'nowhere-a'), path.join(tmp, 'nowhere-b')];
    let err: (Error & { code?: string }) | undefined;
    try { curandIncludeDir(roots); } catch (e) { err = e as Error; }
    expect(err?.code).toBe('ERR_CURAND_HEADERS');
    for (const r of roots) expect(err?.message).toContain(path.join(r, 'include'));
    fs.mkdirSync(path.join(roots[1], 'include'), { recursive: true });
    fs.writeFileSync(path.join(roots[1], 'include', 'curand_kernel.h'), '');
    expect(curandIncludeDir(roots)).toBe(path.join(roots[1], 'include'));
  });
});

/** Bit k of a 32-bit Sobol direction number V_k = m_k << (31 - k) with m_k odd and < 2^(k+1). */
function isDirectionRow(row: Uint32Array): boolean {
  for (let k = 0; k < 32; k++) {
    const v = row[k];
    if (((v >>> (31 - k)) & 1) !== 1) return false; // m_k odd
    if (k < 31 && (v & ((2 ** (31 - k)) - 1)) !== 0) return false; // nothing below bit 31-k
  }
  return true;
}

describe('cuRAND Sobol32 tables through libcurand (dlopen, no GPU)', () => {
  test('direction vectors: 20000 dimensions of valid Sobol direction numbers', () => {
    const v = curandTable(0);
    expect(v.length).toBe(20000 * 32);
    // Dimension 0 is van der Corput: V_k = 2^(31-k).
    for (let k = 0; k < 32; k++) expect(v[k]).toBe(2 ** (31 - k));
    for (const dim of [1, 2, 3, 100, 12345, 19999]) expect(isDirectionRow(v.subarray(dim * 32, dim * 32 + 32))).toBe(true);
    // Dimension 1 (polynomial x + 1, m = 1, 3, 5, 15, …): V_1 = 3 << 30.
    expect(v[32 + 1]).toBe(3 * 2 ** 30);
    // Rows differ (distinct dimensions).
    const rows = new Set<string>();
    for (let d = 0; d < 500; d++) rows.add(v.subarray(d * 32, d * 32 + 32).join(','));
    expect(rows.size).toBe(500);
  });

  test('scrambled vectors and scramble constants', () => {
    const s = curandTable(1);
    const c = curandTable(2);
    expect(s.length).toBe(20000 * 32);
    expect(c.length).toBe(20000);
    expect(s.subarray(0, 32 * 100).join(',')).not.toBe(curandTable(0).subarray(0, 32 * 100).join(','));
    expect(new Set(c.subarray(0, 1000)).size).toBeGreaterThan(990);
    // JS-owned copies: not external, writable, independent of the library's table.
    expect(curandTable(0).buffer).not.toBe(s.buffer);
  });

  test('rows for more generators than dimensions wrap around (i mod 20000)', () => {
    const v = curandTable(0);
    const rows = sobolRows(20003, 0);
    expect(rows.length).toBe(20003 * 32);
    const bytes = (a: Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    expect(bytes(rows.subarray(0, 20000 * 32)).equals(bytes(v))).toBe(true);
    expect(Array.from(rows.subarray(20000 * 32))).toEqual(Array.from(v.subarray(0, 3 * 32)));
    expect(Array.from(sobolRows(5, 2))).toEqual(Array.from(curandTable(2).subarray(0, 5)));
    expect(sobolRows(0, 1).length).toBe(0);
  });

  test('no libcurand: ERR_CURAND_NOT_FOUND naming what was tried', () => {
    if (!fs.existsSync(path.join(DIST, 'random', 'curandom.js'))) throw new Error('build dist first: npx tsc -p tsconfig.build.json');
    const script = `try { require(${JSON.stringify(path.join(DIST, 'random', 'curandom.js'))}).curandTable(0); console.log('no error'); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`;
    const r = spawnSync(process.execPath, ['-e', script], {
      env: { ...process.env, NODECUDA_CURAND: path.join(tmp, 'libcurand-missing.so') }, encoding: 'utf8' });
    const out = JSON.parse(r.stdout.trim());
    expect(out.code).toBe('ERR_CURAND_NOT_FOUND');
    expect(out.message).toContain('libcurand-missing.so');
    expect(out.message).toContain('NODECUDA_CURAND');
  });
});
