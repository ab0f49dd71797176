/** C source text helpers (no GPU): used by the kernel-signature parsers in cuda/launch.ts and the templates. */
/**
 * C source with comments replaced by a space, in one linear pass (the lazy regex `/\*[\s\S]*?\*\//`
 * rescans to the end from every unclosed `/*`: quadratic). An unclosed block comment is left as is.
 * @internal
 * @example
 * stripComments('int /* a *\/ x; // b') === 'int   x;  ';
 */
export function stripComments(src: string): string {
  const n = src.length;
  let out = '';
  let start = 0;
  for (let i = src.indexOf('/'); i >= 0 && i < n - 1; i = src.indexOf('/', i + 1)) {
    const c = src.charCodeAt(i + 1);
    if (c === 42 /* '*' */) {
      const e = src.indexOf('*/', i + 2);
      if (e < 0) break;
      out += src.slice(start, i) + ' ';
      start = e + 2;
      i = e + 1;
    } else if (c === 47 /* '/' */) {
      const e = src.indexOf('\n', i + 2);
      out += src.slice(start, i) + ' ';
      start = e < 0 ? n : e;
      if (e < 0) break;
      i = e;
    }
  }
  return out + src.slice(start);
}
