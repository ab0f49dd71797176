/**
 * Every scan kernel compiles with NVRTC (no GPU needed): cumsum/cumprod for each dtype (plain and
 * segmented), and the scan kernel builders' templates, for sm_75 (PTX) and sm_90 (CUBIN).
 */
import { DTYPES, DType, NvrtcError, compiler } from '../lib';
import { cumSpec } from '../lib/engine/scan';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import { REDUCE_PREAMBLE } from '../lib/engine/templates/reduction';
import { scanKernel } from '../lib/engine/templates/scan';

const accOf = (d: DType) => (d.kind === 'b' || d.kind === 'i' ? DTYPES.int64 : d.kind === 'u' ? DTYPES.uint64 : d);

function compileBoth(source: string, names: string[]): void {
  const ptx = Buffer.from(compiler.compile(source, { arch: 'sm_75', noExternC: true, options: ['--std=c++17'], target: 'ptx' }).image).toString('utf8');
  for (const name of names) expect(ptx).toContain(`.entry ${name}(`);
  const cubin = Buffer.from(compiler.compile(source, { arch: 'sm_90', noExternC: true, options: ['--std=c++17'] }).image);
  for (const name of names) expect(cubin.includes(Buffer.from(`${name}\0`))).toBe(true);
}

describe('generated scan kernels compile (NVRTC, no GPU)', () => {
  test('cumsum and cumprod (and the nan forms of float and complex dtypes) for every dtype, plain and segmented', () => {
    const parts = [PREAMBLE, REDUCE_PREAMBLE];
    const names: string[] = [];
    for (const d of Object.values(DTYPES)) {
      for (const op of ['cumsum', 'cumprod'] as const) {
        for (const seg of [false, true]) {
          const { source, name } = scanKernel(cumSpec(op, d, accOf(d), accOf(d), seg));
          parts.push(source);
          names.push(name);
          if (d.kind !== 'f' && d.kind !== 'c') continue;
          const nan = scanKernel(cumSpec(op, d, accOf(d), accOf(d), seg, true)); // nancumsum, nancumprod
          parts.push(nan.source);
          names.push(nan.name);
        }
      }
    }
    expect(new Set(names).size).toBe(names.length);
    compileBoth(parts.join('\n'), names);
  });

  test('a generic scan with segments and an output statement', () => {
    const { source, name } = scanKernel({
      name: 'gscan_test', acc: 'int', accBytes: 4, scan: 'a + b', neutral: '0',
      params: 'const float *x, float *y, const int *flags', input: 'x[i] > 0 ? 1 : 0',
      output: 'if (prev_item != item) y[prev_item] = x[i];', segment: 'flags[i] != 0',
    });
    compileBoth(`${PREAMBLE}\n${REDUCE_PREAMBLE}\n${source}`, [name]);
  });

  test('a syntax error in a user expression is an NvrtcError showing the numbered source', () => {
    const { source } = scanKernel({
      name: 'gscan_bad', acc: 'int', accBytes: 4, scan: 'a +* b', neutral: '0',
      params: 'const int *x, int *y', input: 'x[i]', output: 'y[i] = item;',
    });
    let err: unknown;
    try {
      compiler.compile(`${PREAMBLE}\n${REDUCE_PREAMBLE}\n${source}`, { arch: 'sm_75', noExternC: true, target: 'ptx' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NvrtcError);
    expect((err as Error).message).toMatch(/a \+\* b/);
    expect((err as Error).message).toMatch(/\d+\s*[|:]/);
  });
});
