// Types of the ES module entry point (dist/index.mjs), copied to dist/index.d.mts by
// "npm run build:ts": the same names as the CommonJS build's declarations, and its
// module.exports as the default export, so ESM users do not get CommonJS types for an ES module.
import cuda from './index.js';

export * from './index.js';
export default cuda;
