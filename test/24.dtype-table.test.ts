/**
 * Layer 24: the dtype table's C columns (lib/base/dtype.ts) — storage, compute and accumulator C
 * types, the unsigned twins, and the C spellings that kernel parameter parsers look up. No GPU.
 */
import { DTYPES, dtypeOfCName } from '../lib/base/dtype';
import { paramDType } from '../lib/cuda/launch';
import { cTypeDType } from '../lib/engine/templates/elementwise_kernel';

describe('dtype table C columns', () => {
  test('every C spelling names its own row, and no spelling names two', () => {
    const seen = new Set<string>();
    for (const d of Object.values(DTYPES)) {
      for (const c of d.cNames) {
        expect(seen.has(c)).toBe(false);
        seen.add(c);
        expect(dtypeOfCName(c)).toBe(d);
      }
    }
    expect(dtypeOfCName('unsigned short int')).toBe(DTYPES.uint16);
    expect(dtypeOfCName('size_t')).toBe(DTYPES.uint64);
    expect(dtypeOfCName('toString')).toBeUndefined();
    expect(dtypeOfCName('float2')).toBeUndefined(); // complex spellings are the ElementwiseKernel parser's
  });

  test('the parsers add their own spellings to the table\'s', () => {
    expect(paramDType('cudaTextureObject_t')).toBe(DTYPES.uint64);
    expect(paramDType('float2')).toBeUndefined();
    expect(cTypeDType('pycuda::complex<float>')).toBe(DTYPES.complex64);
    expect(cTypeDType('double2')).toBe(DTYPES.complex128);
    expect(cTypeDType('float32')).toBe(DTYPES.float32);
    expect(cTypeDType('cudaTextureObject_t')).toBeUndefined();
  });

  test('accumulators are at least 32 bits; unsigned twins exist exactly where integers wrap', () => {
    for (const d of Object.values(DTYPES)) {
      expect(d.accBytes).toBeGreaterThanOrEqual(Math.max(4, d.bytes));
      expect(d.twinC !== '').toBe(d.kind === 'i');
      expect(d.accUnsignedC !== '').toBe(d.kind === 'i' || d.kind === 'u' || d.kind === 'b');
      expect(Object.isFrozen(d) && Object.isFrozen(d.cNames)).toBe(true);
    }
    expect(DTYPES.float16.storageC).toBe('nc_half');
    expect(DTYPES.float16.computeC).toBe('float');
    expect([DTYPES.bfloat16.storageC, DTYPES.bfloat16.computeC, DTYPES.bfloat16.accC]).toEqual(['nc_bf16', 'float', 'float']);
    expect(DTYPES.int16.accC).toBe('int');
    expect(DTYPES.uint8.accC).toBe('unsigned int');
    expect(DTYPES.int64.accUnsignedC).toBe('unsigned long long');
    expect(DTYPES.complex64.accC).toBe('nc_c64_t');
  });
});
