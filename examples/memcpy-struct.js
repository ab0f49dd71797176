'use strict';
// Raw device memory: copies of an int32 array (memcpyHtod, memcpyDtod, memsetD32, memcpyDtoh) and
// PyCUDA's demo_struct: an array of C structs
//     struct DoubleOperation { int datalen, __padding; float *ptr; };   // 16 bytes
// packed with a DataView (the int at byte 0, the 64-bit device pointer at byte 8), copied to the
// GPU as bytes, and read by a kernel that doubles each struct's array (one block per struct).
// A bigint address (structs.ptr + 16n) passes a pointer into the middle of an allocation.
// Every result is checked against the CPU. Run with `node examples/memcpy-struct.js`.
const cuda = require('nodecuda');
const { driver, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

function expectEqual(label, got, want) {
  const g = Array.from(got);
  const w = Array.from(want);
  const i = w.findIndex((v, k) => g[k] !== v);
  if (g.length !== w.length || i >= 0) {
    console.error(`MISMATCH in ${label}: got [${g.slice(0, 8)}...] (length ${g.length}), expected [${w.slice(0, 8)}...] (length ${w.length}); first difference at ${i}`);
    process.exit(1);
  }
  console.log(`${label}: OK`);
}

const mod = new SourceModule(`
__global__ void add_index(int *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += i;
}

struct DoubleOperation {
  int datalen, __padding; // so that the 64-bit pointer is aligned
  float *ptr;
};

__global__ void double_array(DoubleOperation *a)
{
  a = &a[blockIdx.x];
  for (int idx = threadIdx.x; idx < a->datalen; idx += blockDim.x)
    a->ptr[idx] *= 2;
}
`);
const addIndex = mod.getFunction('add_index');
const doubleArray = mod.getFunction('double_array');

// --- 1. An int32 array ------------------------------------------------------------------------
const n = 100_003;
const ints = Int32Array.from({ length: n }, (_, i) => (i * 7919) % 20011 - 10000);
const d = driver.memAllocLike(ints); // n * 4 bytes
driver.memcpyHtod(d, ints);
const back = new Int32Array(n);
driver.memcpyDtoh(back, d);
expectEqual('int32 memcpyHtod -> memcpyDtoh round trip', back, ints);

addIndex(d, n, { block: [256], grid: [Math.ceil(n / 256)] });
driver.memcpyDtoh(back, d);
expectEqual('int32 kernel a[i] += i', back, ints.map((v, i) => v + i));

const copy = driver.memAlloc(d.size);
driver.memcpyDtod(copy, d, d.size); // device to device
const fromCopy = new Int32Array(n);
driver.memcpyDtoh(fromCopy, copy);
expectEqual('int32 memcpyDtod', fromCopy, back);

driver.memsetD32(copy, 0xfffffffe, n); // -2 as a 32-bit pattern
driver.memcpyDtoh(fromCopy, copy);
expectEqual('memsetD32(0xfffffffe)', fromCopy, new Int32Array(n).fill(-2));
d.free();
copy.free();

// --- 2. An array of structs (PyCUDA's demo_struct) -----------------------------------------------
const STRUCT_BYTES = 16; // int datalen, int __padding, float *ptr
const arrays = [
  new Float32Array([1, 2, 3]),
  new Float32Array([0, 4]),
  Float32Array.from({ length: 100 }, (_, i) => i / 4), // longer than a block: the loop strides
];
const buffers = arrays.map((a) => {
  const buf = driver.memAllocLike(a);
  driver.memcpyHtod(buf, a);
  return buf;
});

// Pack the structs on the host: little-endian, with C's layout.
const packed = new DataView(new ArrayBuffer(arrays.length * STRUCT_BYTES));
arrays.forEach((a, k) => {
  packed.setInt32(k * STRUCT_BYTES, a.length, true); // datalen
  packed.setInt32(k * STRUCT_BYTES + 4, 0, true); // __padding
  packed.setBigUint64(k * STRUCT_BYTES + 8, buffers[k].ptr, true); // ptr
});
const structs = driver.memAlloc(packed.byteLength);
driver.memcpyHtod(structs, packed);
console.log(`${arrays.length} structs of ${STRUCT_BYTES} bytes at 0x${structs.ptr.toString(16)}`);

// The struct bytes read back unchanged (the DataView is the host buffer here).
const readBack = new DataView(new ArrayBuffer(packed.byteLength));
driver.memcpyDtoh(readBack, structs);
arrays.forEach((a, k) => {
  const len = readBack.getInt32(k * STRUCT_BYTES, true);
  const ptr = readBack.getBigUint64(k * STRUCT_BYTES + 8, true);
  if (len !== a.length || ptr !== buffers[k].ptr) {
    console.error(`MISMATCH: struct ${k} read back as { datalen: ${len}, ptr: 0x${ptr.toString(16)} }`);
    process.exit(1);
  }
});
console.log('struct array round trip: OK');

// One block per struct: every array is doubled.
doubleArray(structs, { block: [32], grid: [arrays.length] });
// Only the second struct, through a pointer 16 bytes into the allocation (PyCUDA: numpy.intp(do2_ptr)).
doubleArray(structs.ptr + BigInt(STRUCT_BYTES), { block: [32], grid: [1] });

arrays.forEach((a, k) => {
  const got = new Float32Array(a.length);
  driver.memcpyDtoh(got, buffers[k]);
  const factor = k === 1 ? 4 : 2;
  console.log(`  array ${k}: [${Array.from(a.subarray(0, 4)).join(', ')}${a.length > 4 ? ', ...' : ''}] -> ` +
    `[${Array.from(got.subarray(0, 4)).join(', ')}${a.length > 4 ? ', ...' : ''}]`);
  expectEqual(`struct ${k}: array times ${factor}`, got, a.map((v) => v * factor));
});

structs.free();
for (const b of buffers) b.free();
console.log('All checks passed.');
