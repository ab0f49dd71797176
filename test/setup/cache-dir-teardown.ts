/** Jest globalTeardown: removes the temporary kernel cache made by cache-dir.ts. */
import * as fs from 'fs';

export default function teardown(): void {
  const dir = process.env.NODECUDA_TEST_CACHE_DIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
