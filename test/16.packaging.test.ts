/**
 * Layer 16: the packaging scripts' own logic, without building or packing anything: the symbol
 * version check that guards the platform packages (scripts/check-glibc.js) and the source build's
 * list of what is missing (bin/nodecuda-build.js). The real binaries are checked by
 * `npm run build:platform` and scripts/consumer-test.js in CI.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { highest, check, LIMITS } = require('../scripts/check-glibc.js') as {
  highest: (text: string) => Record<string, { version: string; symbols: string[] }>;
  check: (file: string, arch?: string) => { lines: string[]; problems: string[] };
  LIMITS: Record<string, string>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { missing } = require('../bin/nodecuda-build.js') as { missing: (env: NodeJS.ProcessEnv) => string[] };

const READELF = `
Symbol table '.dynsym' contains 5 entries:
   Num:    Value          Size Type    Bind   Vis      Ndx Name
     1: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND dlsym@GLIBC_2.34 (2)
     2: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND memcpy@GLIBC_2.14 (3)
     3: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND dlopen@GLIBC_2.34 (2)
     4: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND _ZNSt6chrono3_V212steady_clock3nowEv@GLIBCXX_3.4.19 (4)
     5: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND __cxa_begin_catch@CXXABI_1.3 (5)
`;

describe('scripts/check-glibc.js', () => {
  test('reads the highest version of each runtime and the symbols that need it (numeric order, not text)', () => {
    expect(highest(READELF)).toEqual({
      GLIBC: { version: '2.34', symbols: ['dlsym', 'dlopen'] },
      GLIBCXX: { version: '3.4.19', symbols: ['_ZNSt6chrono3_V212steady_clock3nowEv'] },
      CXXABI: { version: '1.3', symbols: ['__cxa_begin_catch'] },
    });
    expect(highest('x@GLIBC_2.9 y@GLIBC_2.17 z@GLIBC_2.2.5').GLIBC.version).toBe('2.17');
    expect(highest('no versions here')).toEqual({});
  });

  test('the limits are the RHEL 8 baseline: glibc 2.28, GLIBCXX 3.4.25', () => {
    expect(LIMITS).toEqual({ GLIBC: '2.28', GLIBCXX: '3.4.25', CXXABI: '1.3.11' });
  });

  test('a file readelf cannot read is an error, not a pass', () => {
    const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-glibc-')), 'not-elf.node');
    fs.writeFileSync(f, 'not an ELF file');
    expect(() => check(f)).toThrow(/readelf/);
  });
});

describe('bin/nodecuda-build.js: what a source build lacks', () => {
  test('with no tools on PATH and no CUDA headers, names CMake, a compiler and the headers', () => {
    const lacking = missing({ PATH: path.join(os.tmpdir(), 'nodecuda-no-such-dir'), CUDA_HOME: '/nonexistent-cuda' })
      .filter((m) => !/^cmake-js|node-addon-api/.test(m));
    expect(lacking[0]).toMatch(/^CMake >= 3\.18/);
    expect(lacking[1]).toMatch(/^a C\+\+17 compiler/);
    // /usr/local/cuda is always looked in; where it has the headers, they are not missing.
    const local = ['cuda.h', 'nvrtc.h'].every((h) => fs.existsSync(path.join('/usr/local/cuda/include', h)));
    expect(lacking.length).toBe(local ? 2 : 3);
    if (!local) expect(lacking[2]).toMatch(/cuda\.h and nvrtc\.h/);
  });

  test('tools on PATH are not reported missing (the checks are not always "missing")', () => {
    const onPath = (cmd: string): boolean =>
      (process.env.PATH ?? '').split(path.delimiter).some((d) => d !== '' && fs.existsSync(path.join(d, cmd)));
    const lacking = missing(process.env).join('; ');
    if (onPath('cmake')) expect(lacking).not.toMatch(/not on PATH/);
    if (onPath('c++') || onPath('g++')) expect(lacking).not.toMatch(/C\+\+17 compiler/);
  });
});
