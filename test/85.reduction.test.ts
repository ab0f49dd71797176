/**
 * Reductions on a real GPU, half of the suite in test/reduction-suite.ts (this file: whole array, axis, options; 85.reduction-b: the rest)
 * against the CPU reference in reduce-reference.ts (NumPy 2 semantics): sum prod mean var std
 * min max argmin argmax any all for every dtype at sizes 0, 1, 31, 1000003 (and one 2^28 float32
 * sum); axis (int, list, negative) and keepdims on transposed and sliced inputs; the dtype and out
 * options; NaN propagation; ties; empty arrays; dot; subsetSum/Dot/Min/Max; ReductionKernel; bad
 * input. Float results within the documented tolerance; integer results exactly (BigInt).
 */
import { reductionSuite } from './reduction-suite';

reductionSuite('a');
