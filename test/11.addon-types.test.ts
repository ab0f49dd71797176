/**
 * Layer 11: the boundary between TypeScript and C++. types/addon.d.ts must describe exactly what
 * the loaded addon exports, and the loader (lib/cuda/native.ts) must find the addon where it is
 * documented to look, in order, or say what it tried. No GPU needed.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { addonCandidates, addonPath, describeSystem, native, platformPackage } from '../lib/cuda/native';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const DTS = path.join(ROOT, 'types', 'addon.d.ts');
const PLATFORM_DIR = `${process.platform}-${process.arch}`;

/** The members of `interface Addon` in `namespace NativeAddon`: name → function or not. */
function declaredMembers(): Map<string, { isFunction: boolean; line: number }> {
  const text = fs.readFileSync(DTS, 'utf8');
  const sf = ts.createSourceFile(DTS, text, ts.ScriptTarget.Latest, true);
  const members = new Map<string, { isFunction: boolean; line: number }>();
  let found = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'Addon' &&
        ts.isModuleBlock(node.parent) && ts.isModuleDeclaration(node.parent.parent) &&
        node.parent.parent.name.getText(sf) === 'NativeAddon') {
      found++;
      for (const m of node.members) {
        if (!m.name) throw new Error(`unnamed member in Addon: ${m.getText(sf)}`);
        const name = m.name.getText(sf);
        const line = sf.getLineAndCharacterOfPosition(m.getStart(sf)).line + 1;
        const isFunction = ts.isMethodSignature(m) ||
          (ts.isPropertySignature(m) && !!m.type && (ts.isFunctionTypeNode(m.type) || ts.isConstructorTypeNode(m.type)));
        if (!ts.isMethodSignature(m) && !ts.isPropertySignature(m)) {
          throw new Error(`types/addon.d.ts:${line}: unexpected member kind ${ts.SyntaxKind[m.kind]} in Addon`);
        }
        const prev = members.get(name);
        // Overloads (several signatures of one method) are one export.
        if (prev && prev.isFunction !== isFunction) throw new Error(`${name} declared both as a function and not`);
        members.set(name, { isFunction, line });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (found !== 1) throw new Error(`expected one NativeAddon.Addon interface in ${DTS}, found ${found}`);
  return members;
}

describe('types/addon.d.ts matches the loaded addon', () => {
  const declared = declaredMembers();
  const actual = native as unknown as Record<string, unknown>;

  test('the addon was loaded from one of the documented places', () => {
    expect(addonCandidates()).toContain(addonPath);
    expect(fs.existsSync(addonPath)).toBe(true);
  });

  test('the declarations were parsed (sanity: a few known members)', () => {
    for (const name of ['init', 'launch', 'compile', 'memAlloc']) expect(declared.get(name)?.isFunction).toBe(true);
    expect(declared.get('napiVersion')?.isFunction).toBe(false);
  });

  test('every declared function exists on the addon as a function', () => {
    const missing = [...declared].filter(([name, d]) => d.isFunction && typeof actual[name] !== 'function')
      .map(([name, d]) => `${name} (types/addon.d.ts:${d.line}): ${typeof actual[name]}`);
    expect(missing).toEqual([]);
  });

  test('every declared value exists on the addon and is not a function', () => {
    const wrong = [...declared].filter(([name, d]) => !d.isFunction && (!(name in actual) || typeof actual[name] === 'function'))
      .map(([name]) => `${name}: ${typeof actual[name]}`);
    expect(wrong).toEqual([]);
  });

  test('every addon export is declared', () => {
    const undeclared = Object.keys(actual).filter((k) => !declared.has(k));
    expect(undeclared).toEqual([]);
  });

  test('napiVersion is 9, as package.json "binary" says', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { binary: { napi_versions: number[] } };
    expect(native.napiVersion).toBe(9);
    expect(pkg.binary.napi_versions).toContain(native.napiVersion);
  });
});

describe('addonCandidates: where the loader looks', () => {
  const root = path.join(path.sep, 'pkg');
  const PKG = `@nodecuda/${PLATFORM_DIR}${process.platform === 'linux' ? '-gnu' : ''}`;
  const notInstalled = (): string => {
    throw new Error('not installed');
  };
  const builds = [
    path.join(root, 'build', 'Release', 'nodecuda.node'),
    path.join(root, 'build', 'Debug', 'nodecuda.node'),
    path.join(root, 'prebuilds', PLATFORM_DIR, 'nodecuda.node'),
  ];

  test('the platform package first, then source builds (Release, Debug), then prebuilds/', () => {
    expect(platformPackage()).toBe(PKG);
    expect(platformPackage('linux', 'arm64')).toBe('@nodecuda/linux-arm64-gnu');
    const installed = path.join(root, 'node_modules', PKG, 'nodecuda.node');
    expect(addonCandidates({}, root, () => installed)).toEqual([installed, ...builds]);
    // Not installed: the bare specifier stands in its place (load() reports "not installed").
    expect(addonCandidates({ NODECUDA_BINARY: '' }, root, notInstalled)).toEqual([`${PKG}/nodecuda.node`, ...builds]);
  });

  test('NODECUDA_BINARY, or its alias NODECUDA_ADDON, is the only path tried when set', () => {
    expect(addonCandidates({ NODECUDA_BINARY: '/x/a.node' }, root)).toEqual([path.resolve('/x/a.node')]);
    expect(addonCandidates({ NODECUDA_ADDON: '/x/b.node' }, root)).toEqual([path.resolve('/x/b.node')]);
    expect(addonCandidates({ NODECUDA_BINARY: '/x/a.node', NODECUDA_ADDON: '/x/b.node' }, root))
      .toEqual([path.resolve('/x/a.node')]);
    // Relative paths are taken from the working directory.
    expect(addonCandidates({ NODECUDA_BINARY: 'rel/c.node' }, root)).toEqual([path.resolve('rel/c.node')]);
  });

  test('describeSystem says why no prebuilt binary applies (platform, musl, old glibc), else nothing', () => {
    expect(describeSystem('linux', 'x64', '2.28')).toBe('');
    expect(describeSystem('linux', 'arm64', '2.36')).toBe('');
    expect(describeSystem('linux', 'x64', '2.17')).toMatch(/glibc 2\.17; the prebuilt binaries need glibc >= 2\.28/);
    expect(describeSystem('linux', 'x64', null)).toMatch(/not glibc/);
    expect(describeSystem('darwin', 'arm64', null)).toMatch(/No prebuilt binary is published for darwin-arm64/);
    expect(describeSystem('linux', 'ppc64', '2.34')).toMatch(/linux-ppc64/);
  });
});

describe('loading in a child process (the built package in dist/)', () => {
  let tmp: string;
  beforeAll(() => {
    if (!fs.existsSync(path.join(DIST, 'cuda', 'native.js'))) {
      throw new Error(`${DIST}/cuda/native.js is missing: run "npm run build:ts" first.`);
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-loader-'));
  });
  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Loads `<pkgDir>/dist/cuda/native.js` in a fresh process; reports the path loaded or the error. */
  function loadIn(pkgDir: string, env: Record<string, string>): { path?: string; code?: string; message?: string; tried?: string[] } {
    const script = `
      try {
        const n = require(${JSON.stringify(path.join(pkgDir, 'dist', 'cuda', 'native.js'))});
        if (typeof n.native.launch !== 'function') throw new Error('no launch');
        console.log(JSON.stringify({ path: n.addonPath }));
      } catch (e) {
        console.log(JSON.stringify({ code: e.code, message: e.message, tried: e.tried }));
      }`;
    const clean = { ...process.env };
    delete clean.NODECUDA_BINARY;
    delete clean.NODECUDA_ADDON;
    const r = spawnSync(process.execPath, ['-e', script], { env: { ...clean, ...env }, encoding: 'utf8', timeout: 60000 });
    if (r.status !== 0) throw new Error(`child exited with ${r.status}: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop() as string);
  }

  /** A package directory with dist/ and package.json (copies) and optionally a prebuilt addon. */
  function fakePackage(name: string, prebuilt: boolean, platformPkg = false): string {
    const dir = path.join(tmp, name);
    fs.cpSync(DIST, path.join(dir, 'dist'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    if (platformPkg) {
      const p = path.join(dir, 'node_modules', platformPackage());
      fs.mkdirSync(p, { recursive: true });
      fs.writeFileSync(path.join(p, 'package.json'), JSON.stringify({ name: platformPackage(), version: '0.0.0', main: 'nodecuda.node' }));
      fs.copyFileSync(addonPath, path.join(p, 'nodecuda.node'));
    }
    if (prebuilt) {
      fs.mkdirSync(path.join(dir, 'prebuilds', PLATFORM_DIR), { recursive: true });
      fs.copyFileSync(addonPath, path.join(dir, 'prebuilds', PLATFORM_DIR, 'nodecuda.node'));
    }
    return dir;
  }

  test('with no build/ directory, the prebuilt binary for this platform is loaded', () => {
    const dir = fakePackage('with-prebuild', true);
    expect(loadIn(dir, {})).toEqual({ path: path.join(dir, 'prebuilds', PLATFORM_DIR, 'nodecuda.node') });
  });

  test('build/Release is preferred to the prebuilt binary', () => {
    const dir = fakePackage('both', true);
    fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
    fs.copyFileSync(addonPath, path.join(dir, 'build', 'Release', 'nodecuda.node'));
    expect(loadIn(dir, {})).toEqual({ path: path.join(dir, 'build', 'Release', 'nodecuda.node') });
  });

  test('a broken build/Release does not hide a working prebuilt binary', () => {
    const dir = fakePackage('broken-build', true);
    fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'build', 'Release', 'nodecuda.node'), 'not a shared object');
    expect(loadIn(dir, {})).toEqual({ path: path.join(dir, 'prebuilds', PLATFORM_DIR, 'nodecuda.node') });
  });

  test('the platform package (node_modules/@nodecuda/<platform>) is preferred to build/ and prebuilds/', () => {
    const dir = fakePackage('platform-pkg', true, true);
    fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
    fs.copyFileSync(addonPath, path.join(dir, 'build', 'Release', 'nodecuda.node'));
    expect(loadIn(dir, {})).toEqual({ path: path.join(dir, 'node_modules', platformPackage(), 'nodecuda.node') });
  });

  test('a platform package that does not load (say, too old a glibc) falls back to build/, with its reason kept', () => {
    const dir = fakePackage('platform-broken', false, true);
    fs.writeFileSync(path.join(dir, 'node_modules', platformPackage(), 'nodecuda.node'), 'not a shared object');
    expect(loadIn(dir, {}).code).toBe('ERR_NODECUDA_ADDON_MISSING');
    fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
    fs.copyFileSync(addonPath, path.join(dir, 'build', 'Release', 'nodecuda.node'));
    expect(loadIn(dir, {})).toEqual({ path: path.join(dir, 'build', 'Release', 'nodecuda.node') });
  });

  test('nothing to load: ERR_NODECUDA_ADDON_MISSING lists every path tried and how to build', () => {
    const dir = fakePackage('nothing', false);
    const r = loadIn(dir, {});
    expect(r.code).toBe('ERR_NODECUDA_ADDON_MISSING');
    expect(r.message).toContain(`${platformPackage()}: not installed`);
    expect(r.message).toContain('npx nodecuda-build');
    expect(r.message).toMatch(/CMake >= 3\.18/);
    expect(r.message).toContain('--omit=optional');
    const expected = [
      `${platformPackage()}/nodecuda.node`,
      path.join(dir, 'build', 'Release', 'nodecuda.node'),
      path.join(dir, 'build', 'Debug', 'nodecuda.node'),
      path.join(dir, 'prebuilds', PLATFORM_DIR, 'nodecuda.node'),
    ];
    expect(r.tried).toEqual(expected);
    for (const p of expected.slice(1)) expect(r.message).toContain(`${p}: not found`);
    expect(r.message).toContain('npm run build');
    expect(r.message).toMatch(/CUDA toolkit headers/);
    expect(r.message).toMatch(/CMake/);
    expect(r.message).toContain('NODECUDA_BINARY');
  });

  test('NODECUDA_BINARY loads that file; NODECUDA_ADDON is an alias; BINARY wins over ADDON', () => {
    const dir = fakePackage('override', true);
    const copy = path.join(tmp, 'elsewhere.node');
    fs.copyFileSync(addonPath, copy);
    const missing = path.join(tmp, 'missing.node');
    expect(loadIn(dir, { NODECUDA_BINARY: copy })).toEqual({ path: copy });
    expect(loadIn(dir, { NODECUDA_ADDON: copy })).toEqual({ path: copy });
    expect(loadIn(dir, { NODECUDA_BINARY: copy, NODECUDA_ADDON: missing })).toEqual({ path: copy });
  });

  test('an override that does not load is an error naming it (no silent fallback), with the reason', () => {
    const dir = fakePackage('bad-override', true);
    const missing = path.join(tmp, 'missing.node');
    const r1 = loadIn(dir, { NODECUDA_BINARY: missing });
    expect(r1.code).toBe('ERR_NODECUDA_ADDON_MISSING');
    expect(r1.tried).toEqual([missing]);
    expect(r1.message).toContain(`${missing}: not found`);
    expect(r1.message).toContain('NODECUDA_BINARY');

    const garbage = path.join(tmp, 'garbage.node');
    fs.writeFileSync(garbage, 'not a shared object');
    const r2 = loadIn(dir, { NODECUDA_ADDON: garbage });
    expect(r2.code).toBe('ERR_NODECUDA_ADDON_MISSING');
    expect(r2.tried).toEqual([garbage]);
    // The reason is the dynamic loader's message, not "not found".
    expect(r2.message).toContain(`${garbage}: `);
    expect(r2.message).not.toContain(`${garbage}: not found`);
    expect(r2.message).toContain('NODECUDA_ADDON');
  });
});
