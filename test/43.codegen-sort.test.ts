/**
 * Every sort kernel compiles with NVRTC (no GPU needed): the radix sort's prep/finish kernels,
 * unique's count and result kernels and searchsorted's for each dtype, unique's counting path for
 * the integers and bool (histogram, bin results, inverse, and the min/max reduction in the
 * variants the engine picks), and the dtype-independent scanhist and scatter passes and occupied
 * bins count, and the prep and scatter passes' tuning variants, for sm_75 (PTX) and sm_90 (CUBIN).
 */
import { DTYPES, compiler } from '../lib';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import { searchKernel, sortCommonKernels, sortKernelsFor } from '../lib/engine/templates/sort';
import { REDUCE_PREAMBLE, reduceKernel } from '../lib/engine/templates/reduction';
import { uniqueMinMaxSpec, uniqueResultKernel } from '../lib/engine/templates/unique';
import { expectCode } from './helpers';

function compileBoth(source: string, names: string[]): void {
  const ptx = Buffer.from(compiler.compile(source, { arch: 'sm_75', noExternC: true, options: ['--std=c++17'], target: 'ptx' }).image).toString('utf8');
  for (const name of names) expect(ptx).toContain(`.entry ${name}(`);
  const cubin = Buffer.from(compiler.compile(source, { arch: 'sm_90', noExternC: true, options: ['--std=c++17'] }).image);
  for (const name of names) expect(cubin.includes(Buffer.from(`${name}\0`))).toBe(true);
}

describe('generated sort kernels compile (NVRTC, no GPU)', () => {
  test.each(Object.keys(DTYPES))('%s: prep, finish, unique and searchsorted kernels', (d) => {
    const ks = sortKernelsFor(DTYPES[d as keyof typeof DTYPES]);
    compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
  });

  const COUNTABLE = Object.keys(DTYPES).filter((d) => 'biu'.includes(DTYPES[d as keyof typeof DTYPES].kind));
  test('the counting path covers every integer dtype and bool', () => expect(COUNTABLE.length).toBe(9));
  test.each(COUNTABLE)('%s: unique\'s min/max reduction (vector loads, and scalar with 64-bit offsets)', (d) => {
    const dt = DTYPES[d as keyof typeof DTYPES];
    const spec = uniqueMinMaxSpec(dt);
    const ks = [reduceKernel(spec, { kind: 'rows', nk: 1, nr: 1, wide: false, e: 16 / dt.bytes }),
      reduceKernel(spec, { kind: 'rows', nk: 1, nr: 1, wide: true, e: 1 })];
    expect(ks.every((k) => k.source.includes('_DEF'))).toBe(true);
    compileBoth([PREAMBLE, REDUCE_PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
    expect(sortKernelsFor(dt).map((k) => k.name)).toEqual(expect.arrayContaining(
      [`nc_unique_hist_${d}`, `nc_unique_bins_result_${d}`, `nc_unique_inverse_${d}`]));
    // 4- and 8-byte integers: unique's sort finds the range in a prep of its own (compiled above
    // with the others); the sorts' prep has no range code.
    const preps = sortKernelsFor(dt).filter((k) => k.name.startsWith('nc_sort_prep_value_'));
    expect(preps.map((k) => k.name)).toEqual(dt.kind !== 'b' && dt.bytes >= 4
      ? [`nc_sort_prep_value_${d}`, `nc_sort_prep_value_${d}_range`] : [`nc_sort_prep_value_${d}`]);
    expect(preps.map((k) => k.source.includes('atomicMin(&range[0], lo)'))).toEqual(preps.map((k) => k.name.endsWith('_range')));
  });

  test('unique\'s result kernel one round a step (NODECUDA_UNIQUE_RESULT_ROUNDS=1; two is the default, compiled above)', () => {
    const ks = ['int32', 'float64', 'complex128', 'bool'].map((d) => uniqueResultKernel(DTYPES[d as keyof typeof DTYPES], true, 1));
    expect(ks.map((k) => k.name)).toEqual(['nc_unique_result_int32_eqnan_r1', 'nc_unique_result_float64_eqnan_r1',
      'nc_unique_result_complex128_eqnan_r1', 'nc_unique_result_bool_eqnan_r1']);
    for (const k of ks) expect(k.source).not.toContain('x1[4]');
    expect(uniqueResultKernel(DTYPES.int32, true, 2).source).toContain('x1[4]');
    compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
  });

  test('scanhist, the scatter passes and unique counts', () => {
    const ks = sortCommonKernels();
    expect(new Set(ks.map((k) => k.name)).size).toBe(ks.length);
    compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
  });

  type SortModule = typeof import('../lib/engine/templates/sort');
  const TUNING = ['NODECUDA_SORT_BALLOTS', 'NODECUDA_SORT_SWIZZLE', 'NODECUDA_SORT_EARLY', 'NODECUDA_SORT_BLOCK', 'NODECUDA_SORT_ITEMS', 'NODECUDA_SORT_PASS_BLOCKS',
    'NODECUDA_SORT_PREP_BITS', 'NODECUDA_SORT_PREP_COPIES', 'NODECUDA_SORT_PREP_ITEMS', 'NODECUDA_SORT_PREP_FLUSH'];
  /**
   * Loads the sort templates afresh with exactly `vars` of the tuning variables set (the others
   * unset, whatever this process inherited) and passes them to `fn`; restores the environment.
   */
  function withTuning<T>(vars: Record<string, string>, fn: (m: () => SortModule) => T): T {
    const saved = TUNING.map((k) => [k, process.env[k]] as const);
    try {
      for (const k of TUNING) delete process.env[k];
      Object.assign(process.env, vars);
      let out: T | undefined;
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module load reads the variables
      jest.isolateModules(() => { out = fn(() => require('../lib/engine/templates/sort') as SortModule); });
      return out as T;
    } finally {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k]; else process.env[k] = v;
      }
    }
  }
  function rejects(name: string, bad: string): void {
    withTuning({ [name]: bad }, (load) => {
      const e = expectCode(load, RangeError, 'ERR_INVALID_ENV');
      expect(e.message).toContain(`${name}="${bad}"`);
    });
  }

  test('the scatter pass in each ranking and shared-index variant (NODECUDA_SORT_BALLOTS, NODECUDA_SORT_SWIZZLE)', () => {
    const sources = new Set<string>();
    for (const [b, z] of [['0', '1'], ['1', '1'], ['0', '0'], ['1', '0']]) {
      withTuning({ NODECUDA_SORT_BALLOTS: b, NODECUDA_SORT_SWIZZLE: z }, (load) => {
        const { passKernel } = load();
        const ks = [passKernel(DTYPES.float32, 4, false), passKernel(DTYPES.float32, 4, true), passKernel(DTYPES.uint8, 1, false)];
        expect(ks[0].source.includes('atomicOr(&s_match')).toBe(b === '0');
        expect(ks[0].source.includes('__ballot_sync(0xffffffffu, (d >> b) & 1u)')).toBe(b === '1');
        expect(ks[0].source.includes('return d ^ (d >> 5);')).toBe(z === '1');
        for (const k of ks) sources.add(k.source);
        compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
      });
    }
    expect(sources.size).toBe(12);
    rejects('NODECUDA_SORT_BALLOTS', 'yes');
  });

  /** The bodies of the `if (t < 256) { … }` sections of a pass kernel's source (braces matched). */
  function digitSections(source: string): string[] {
    const out: string[] = [];
    for (let at = source.indexOf('if (t < 256) {'); at >= 0; at = source.indexOf('if (t < 256) {', at + 1)) {
      let depth = 0, i = source.indexOf('{', at);
      const start = i;
      for (; i < source.length; i++) {
        if (source[i] === '{') depth++;
        else if (source[i] === '}' && --depth === 0) break;
      }
      out.push(source.slice(start, i + 1));
    }
    return out;
  }

  // Threads, keys per thread and blocks per SM of the scatter pass: the tile and the launch bounds follow.
  test('the scatter pass in each block, items and blocks-per-SM variant (NODECUDA_SORT_BLOCK, _ITEMS, _PASS_BLOCKS)', () => {
    // variables, then per kernel (int32 keys only, float32 with a payload, float64 keys only): threads, keys a thread; blocks per SM
    const cases: Array<[Record<string, string>, Array<[number, number]>, number]> = [
      [{}, [[256, 32], [512, 14], [256, 16]], 2],
      [{ NODECUDA_SORT_BLOCK: '256' }, [[256, 32], [256, 24], [256, 16]], 2],
      [{ NODECUDA_SORT_BLOCK: '512' }, [[512, 14], [512, 14], [512, 8]], 2],
      [{ NODECUDA_SORT_BLOCK: '256', NODECUDA_SORT_ITEMS: '20', NODECUDA_SORT_PASS_BLOCKS: '3' }, [[256, 20], [256, 20], [256, 16]], 3],
      [{ NODECUDA_SORT_ITEMS: '32' }, [[256, 32], [512, 16], [256, 16]], 2],
      [{ NODECUDA_SORT_BLOCK: '256', NODECUDA_SORT_ITEMS: '12', NODECUDA_SORT_PASS_BLOCKS: '4' }, [[256, 12], [256, 12], [256, 12]], 4],
    ];
    // Early counts on (the default) and off: with them, per-warp counts are 32-bit and 512-thread
    // tiles hold at most 28 KiB of exchange (14 4-byte keys a thread, 7 8-byte keys).
    for (const [vars, table, blocks] of cases) for (const early of ['1', '0']) {
      const shapes = table.map(([threads, it], j): [number, number] =>
        [threads, early === '1' && threads === 512 ? Math.min(it, j === 2 ? 7 : 14) : it]);
      withTuning({ ...vars, NODECUDA_SORT_EARLY: early }, (load) => {
        const { passKernel, sortTile } = load();
        const ks = [passKernel(DTYPES.int32, 4, false), passKernel(DTYPES.float32, 4, true), passKernel(DTYPES.float64, 8, false)];
        shapes.forEach(([threads, it], j) => {
          expect(ks[j].source).toContain(`constexpr int IT = ${it}, TILE = ${threads * it};`);
          expect(ks[j].source).toContain(`__launch_bounds__(${threads}, ${blocks})`);
          // 512 threads: 16 warps of counts (16-bit without early counts), and only the first 256 threads own a digit.
          const counts = threads === 512 ? `unsigned ${early === '1' ? 'int' : 'short'} s_cnt[16][256]` : 'unsigned int s_cnt[8][256]';
          expect(ks[j].source).toContain(counts);
          expect(ks[j].source.includes('if (t < 256) {')).toBe(threads === 512);
          // Every barrier is reached by all threads: none inside the digit threads' sections.
          for (const section of digitSections(ks[j].source)) expect(section).not.toContain('__syncthreads');
        });
        expect([sortTile(4, false), sortTile(4, true), sortTile(8, false)]).toEqual(shapes.map(([threads, it]) => threads * it));
        compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
      });
    }
    // 1- and 2-byte keys with 512 threads (not the default): 14 keys a thread, with and without a payload.
    withTuning({ NODECUDA_SORT_BLOCK: '512' }, (load) => {
      const { passKernel, sortTile } = load();
      const ks = [passKernel(DTYPES.uint8, 1, false), passKernel(DTYPES.uint8, 1, true), passKernel(DTYPES.float16, 2, false)];
      for (const k of ks) expect(k.source).toContain('constexpr int IT = 14, TILE = 7168;');
      expect([sortTile(1, false), sortTile(1, true), sortTile(2, false)]).toEqual([7168, 7168, 7168]);
      compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
    });
    rejects('NODECUDA_SORT_BLOCK', '384');
    rejects('NODECUDA_SORT_ITEMS', '33');
    rejects('NODECUDA_SORT_PASS_BLOCKS', '1');
    rejects('NODECUDA_SORT_PASS_BLOCKS', '5');
  });

  test('the scatter pass with early counts (NODECUDA_SORT_EARLY=1): counts, scans and publication before the ranking, '
    + 'the look-back after the exchange; 32-bit per-warp counts', () => {
    const publish = '*(volatile unsigned long long*)mine = e | ((tile == 0 ? 2ull : 1ull) << 32) | tot;';
    for (const [block, ballots] of [['256', '0'], ['512', '0'], ['512', '1']]) {
      for (const early of ['0', '1']) {
        withTuning({ NODECUDA_SORT_EARLY: early, NODECUDA_SORT_BLOCK: block, NODECUDA_SORT_BALLOTS: ballots }, (load) => {
          const { passKernel, sortTile } = load();
          const ks = [passKernel(DTYPES.int32, 4, false), passKernel(DTYPES.float32, 4, true), passKernel(DTYPES.float64, 8, false),
            passKernel(DTYPES.float64, 8, true), passKernel(DTYPES.float16, 2, false), passKernel(DTYPES.uint8, 1, true)];
          for (const k of ks) {
            const src = k.source;
            expect(src.split(publish).length).toBe(2); // published once
            const rank = src.indexOf('// Stable warp ranking'), look = src.indexOf('// Look back');
            const exchange = src.search(/sk\[rk\[j\]\] = key\[j\];/);
            expect([rank, look, exchange].every((at) => at > 0)).toBe(true);
            // Early: publication before the ranking, the look-back after the exchange writes;
            // default: both after the ranking, the look-back before the exchange.
            expect([src.indexOf(publish) < rank, look > rank, look > exchange]).toEqual([early === '1', true, early === '1']);
            expect(src.includes('atomicAdd(&s_cnt[warp]')).toBe(early === '1');
            expect(src.includes('rk[j] += s_cnt[warp]')).toBe(early === '0'); // early: the ranks are tile positions
            expect(src.includes('unsigned short s_cnt')).toBe(block === '512' && early === '0');
            for (const section of digitSections(src)) expect(section).not.toContain('__syncthreads');
          }
          // 512 threads with early counts: 8-byte keys get 7 a thread (28 KiB of exchange).
          if (block === '512') expect(sortTile(8, false)).toBe(512 * (early === '1' ? 7 : 8));
          compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
        });
      }
    }
    rejects('NODECUDA_SORT_EARLY', '2');
  });

  test('NODECUDA_TOPK_SELECT_FRACTION takes a fraction in [0, 1]: the largest k / len topk selects', () => {
    const saved = process.env.NODECUDA_TOPK_SELECT_FRACTION;
    try {
      for (const [v, ok] of [['2', false], ['-0.1', false], ['x', false], ['0.5', true], ['0', true], ['', true]] as const) {
        process.env.NODECUDA_TOPK_SELECT_FRACTION = v;
        jest.isolateModules(() => {
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module load reads the variable
          const load = (): typeof import('../lib/engine/select') => require('../lib/engine/select');
          if (!ok) {
            expect(expectCode(load, RangeError, 'ERR_INVALID_ENV').message).toContain(`NODECUDA_TOPK_SELECT_FRACTION="${v}"`);
            return;
          }
          const { selectable, partitionable } = load();
          const f = v === '' ? 0.25 : Number(v);
          expect(selectable(DTYPES.float32, 10000, 5000)).toBe(f >= 0.5);
          expect(selectable(DTYPES.float32, 10000, 2500)).toBe(f >= 0.25);
          expect(partitionable(DTYPES.float32, 10000, 1)).toBe(f > 0);
          // never: complex, short rows (the short-row sort), rows of at most one tile, several kths
          expect(selectable(DTYPES.complex64, 10000, 1) || selectable(DTYPES.float32, 4096, 1) || partitionable(DTYPES.float64, 1024, 1)
            || partitionable(DTYPES.float32, 10000, 2)).toBe(false);
          expect(selectable(DTYPES.float64, 2049, 1)).toBe(f > 0);
        });
      }
    } finally {
      if (saved === undefined) delete process.env.NODECUDA_TOPK_SELECT_FRACTION; else process.env.NODECUDA_TOPK_SELECT_FRACTION = saved;
    }
  });

  test('NODECUDA_SORT_PREP_WAVES is checked when the sort engine loads (0 to 4)', () => {
    const saved = process.env.NODECUDA_SORT_PREP_WAVES;
    try {
      for (const [v, ok] of [['5', false], ['-1', false], ['1.5', false], ['0', true], ['4', true]] as const) {
        process.env.NODECUDA_SORT_PREP_WAVES = v;
        jest.isolateModules(() => {
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module load reads the variable
          const load = (): unknown => require('../lib/engine/sort');
          if (ok) expect(load()).toHaveProperty('runSort');
          else expect(expectCode(load, RangeError, 'ERR_INVALID_ENV').message).toContain(`NODECUDA_SORT_PREP_WAVES="${v}"`);
        });
      }
    } finally {
      if (saved === undefined) delete process.env.NODECUDA_SORT_PREP_WAVES; else process.env.NODECUDA_SORT_PREP_WAVES = saved;
    }
  });

  test('the scatter pass: 16-byte zeroing, keys past n padded, full-tile paths, digits by byte permute; with and without '
    + 'early counts (unset: with them)', () => {
    const kernels = (m: SortModule): Array<{ source: string; name: string }> => [
      m.passKernel(DTYPES.uint8, 1, false), m.passKernel(DTYPES.bool, 1, true), m.passKernel(DTYPES.float16, 2, true),
      m.passKernel(DTYPES.int32, 4, false), m.passKernel(DTYPES.float32, 4, true), m.passKernel(DTYPES.float64, 8, false),
      m.passKernel(DTYPES.int64, 8, true)];
    const early1 = withTuning({ NODECUDA_SORT_EARLY: '1' }, (load) => kernels(load()).map((k) => k.source));
    withTuning({}, (load) => expect(kernels(load()).map((k) => k.source)).toEqual(early1));
    for (const early of ['0', '1']) {
      withTuning({ NODECUDA_SORT_EARLY: early }, (load) => {
        const ks = kernels(load());
        ks.forEach((k) => {
          const src = k.source;
          expect(src).toContain('reinterpret_cast<uint4*>(&s_cnt[0][0])[k * ');
          expect(src).toContain('if (j * 32 + lane >= rem) key[j] = '); // padding
          // No key's validity tested past the loads: ranking, early counts and exchanges.
          expect(src).not.toContain('if (j * 32 + lane < rem)');
          expect(src).toContain('const bool valid = true;');
          expect(src).toContain('if (rem == 32u * IT) {');
          expect(src.split('if (cnt == TILE) {').length).toBe(k.name.endsWith('_v') ? 3 : 2);
          expect(src).not.toContain('>> shift');
          expect(src.includes('__byte_perm(')).toBe(!k.name.includes('_k1'));
          expect(src.includes('atomicAdd(&s_cnt[warp]')).toBe(early === '1');
          for (const section of digitSections(src)) expect(section).not.toContain('__syncthreads');
        });
        compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
      });
    }
    // The ballot ranking and 256-thread tiles with it.
    withTuning({ NODECUDA_SORT_BALLOTS: '1', NODECUDA_SORT_BLOCK: '256' }, (load) => {
      const ks = kernels(load());
      compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
    });
  });

  test('prep with 16-bit counters in each copies, items and flush variant (NODECUDA_SORT_PREP_BITS=16, _COPIES, _ITEMS, _FLUSH)', () => {
    const sources = new Set<string>();
    // Copies, items, flush setting, then the period expected: the most iterations before a 16-bit
    // half could overflow (a copy counts for 256 / copies threads, `items` keys each an iteration),
    // or the setting when it is lower. Copies unset: 4.
    const cases: Array<[string | undefined, string, string | undefined, number]> = [
      ['1', '1', undefined, 255], [undefined, '4', undefined, 255], ['16', '8', undefined, 511], ['8', '3', undefined, 682],
      ['16', '1', undefined, 1023], ['4', '4', '100', 100], ['4', '4', '1', 1],
    ];
    for (const [c, i, flush, period] of cases) {
      const vars = {
        NODECUDA_SORT_PREP_BITS: '16', NODECUDA_SORT_PREP_ITEMS: i, ...(c ? { NODECUDA_SORT_PREP_COPIES: c } : {}),
        ...(flush ? { NODECUDA_SORT_PREP_FLUSH: flush } : {}),
      };
      const copies = c ? +c : 4;
      withTuning(vars, (load) => {
        const { prepKernel } = load();
        const ks = [prepKernel(DTYPES.float32, 'value'), prepKernel(DTYPES.float64, 'value'), prepKernel(DTYPES.uint8, 'value'),
          prepKernel(DTYPES.complex64, 're')];
        // 8-byte keys: at most 8 copies (32 KiB).
        expect(ks[0].source).toContain(`__shared__ unsigned int sh[${4 * 128 * copies}]`);
        expect(ks[1].source).toContain(`__shared__ unsigned int sh[${8 * 128 * Math.min(copies, 8)}]`);
        expect(ks[0].source).toContain(`if (++round == ${period}u)`);
        expect(ks[0].source).toContain(`* ${copies} + copy], 1u << ((d & 1u) << 4));`);
        for (const k of ks) sources.add(k.source);
        compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
      });
    }
    expect(sources.size).toBe(28);
    rejects('NODECUDA_SORT_PREP_COPIES', '3');
    rejects('NODECUDA_SORT_PREP_ITEMS', '9');
    rejects('NODECUDA_SORT_PREP_FLUSH', '0');
    rejects('NODECUDA_SORT_PREP_FLUSH', '1024');
  });

  test('prep with 32-bit counters (the default) in each copies and items variant', () => {
    // Copies set (unset: 1), then the copies expected for 4- and 8-byte keys (at most 32 KiB of counters).
    const cases: Array<[Record<string, string>, number, number]> = [
      [{}, 1, 1], [{ NODECUDA_SORT_PREP_BITS: '32' }, 1, 1], [{ NODECUDA_SORT_PREP_COPIES: '4' }, 4, 4],
      [{ NODECUDA_SORT_PREP_COPIES: '16', NODECUDA_SORT_PREP_ITEMS: '8' }, 8, 4],
    ];
    for (const [vars, c4, c8] of cases) {
      withTuning(vars, (load) => {
        const { prepKernel } = load();
        const ks = [prepKernel(DTYPES.float32, 'value'), prepKernel(DTYPES.float64, 'value'), prepKernel(DTYPES.uint8, 'value'),
          prepKernel(DTYPES.int32, 'row')];
        expect(ks[0].source).toContain(`__shared__ unsigned int sh[${4 * 256 * c4}]`);
        expect(ks[1].source).toContain(`__shared__ unsigned int sh[${8 * 256 * c8}]`);
        // One counter a digit, incremented by 1; one flush at the block's end, straight into hist[q * 256 + d].
        expect(ks[0].source).toContain(`atomicAdd(&sh[((q << 8) + d) * ${c4} + copy], 1u);`);
        expect(ks[0].source).toContain('if (lo) atomicAdd(&hist[w], lo);');
        for (const k of ks) expect(k.source).not.toContain('++round');
        compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
      });
    }
    rejects('NODECUDA_SORT_PREP_BITS', '8');
    rejects('NODECUDA_SORT_PREP_BITS', '24');
  });

  test('searchsorted across dtypes (compared in the promoted type)', () => {
    const { int32, float32, float64, uint8, float16, complex64 } = DTYPES;
    const ks = [searchKernel(int32, float32, float64), searchKernel(uint8, int32, int32), searchKernel(float16, float32, float32),
      searchKernel(complex64, float64, DTYPES.complex128)];
    compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
  });
});
