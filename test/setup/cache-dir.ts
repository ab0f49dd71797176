/**
 * Jest globalSetup: the suite compiles hundreds of kernels; unless NODECUDA_CACHE_DIR is set, they
 * go to a fresh temporary directory (removed by the teardown), never into ~/.cache/nodecuda.
 * Test processes and the children they spawn inherit the variable.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export default function setup(): void {
  if (process.env.NODECUDA_CACHE_DIR) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-test-cache-'));
  process.env.NODECUDA_CACHE_DIR = dir;
  process.env.NODECUDA_TEST_CACHE_DIR = dir; // what the teardown removes
}
