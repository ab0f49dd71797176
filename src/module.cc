// Modules (loaded CUBIN/PTX), their functions and globals, function attributes and occupancy.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "addon.h"
#include "context.h"
#include "handles.h"

namespace nodecuda {
namespace {

// cuModuleLoadData takes no size: the driver trusts the offsets and sizes inside the image, so a
// truncated CUBIN or one whose headers point past its end makes it read out of bounds (SIGSEGV,
// seen with the first 64 bytes or half of a cubin). These checks bound every table and section the
// driver follows by the buffer's length before it sees the image. They are structural, not a
// verifier: a well-formed image with wrong code inside still loads (the disk cache checks a
// SHA-256 of what it wrote; images from elsewhere are the caller's).
[[noreturn]] void BadImage(const std::string& why) {
  throw CuErr(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData",
              "the image is damaged or truncated (" + why + "); nothing was loaded");
}

// Little-endian field readers (CUDA images are little-endian; memcpy, as fields may be unaligned).
template <typename T>
T Field(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}

// [off, off + count * entsize) lies within len (count and entsize are at most 2^32, no overflow).
bool Within(uint64_t off, uint64_t count, uint64_t entsize, uint64_t len) {
  if (count > UINT32_MAX || entsize > UINT32_MAX) return false;
  return off <= len && count * entsize <= len - off;
}

constexpr uint32_t kShtSymtab = 2, kShtStrtab = 3, kShtRela = 4, kShtHash = 5, kShtDynamic = 6,
                   kShtNobits = 8, kShtRel = 9, kShtDynsym = 11;

// An ELF64 image (a CUBIN): header, program and section header tables, every section's bytes,
// string tables NUL-terminated, symbol names inside their string table.
void CheckElf(const uint8_t* p, uint64_t len) {
  if (len < 64) BadImage("ELF header cut short");
  if (p[4] != 2 || p[5] != 1) BadImage("not a 64-bit little-endian ELF");
  const uint64_t phoff = Field<uint64_t>(p, 0x20), shoff = Field<uint64_t>(p, 0x28);
  const uint16_t phentsize = Field<uint16_t>(p, 0x36), phnum = Field<uint16_t>(p, 0x38);
  const uint16_t shentsize = Field<uint16_t>(p, 0x3A);
  uint64_t shnum = Field<uint16_t>(p, 0x3C);
  uint64_t shstrndx = Field<uint16_t>(p, 0x3E);
  if (phnum) {
    if (phentsize < 56 || !Within(phoff, phnum, phentsize, len))
      BadImage("program header table outside the image");
    for (uint64_t i = 0; i < phnum; i++) {
      const uint8_t* ph = p + phoff + i * phentsize;
      if (!Within(Field<uint64_t>(ph, 0x08), 1, Field<uint64_t>(ph, 0x20), len))
        BadImage("segment " + std::to_string(i) + " outside the image");
    }
  }
  if (shoff == 0) return;  // no section table
  if (shentsize < 64 || !Within(shoff, 1, shentsize, len))
    BadImage("section header table outside the image");
  // More than 0xff00 sections: the real count and string table index are in section 0.
  if (shnum == 0) shnum = Field<uint64_t>(p + shoff, 0x20);
  if (shstrndx == 0xffff) shstrndx = Field<uint32_t>(p + shoff, 0x28);
  if (!Within(shoff, shnum, shentsize, len)) BadImage("section header table outside the image");
  auto sh = [&](uint64_t i) { return p + shoff + i * shentsize; };
  for (uint64_t i = 0; i < shnum; i++) {
    const uint32_t type = Field<uint32_t>(sh(i), 0x04), link = Field<uint32_t>(sh(i), 0x28);
    const uint64_t off = Field<uint64_t>(sh(i), 0x18), size = Field<uint64_t>(sh(i), 0x20);
    if (type != 0 && type != kShtNobits && !Within(off, 1, size, len))
      BadImage("section " + std::to_string(i) + " outside the image");
    const bool links = type == kShtSymtab || type == kShtRela || type == kShtHash ||
                       type == kShtDynamic || type == kShtRel || type == kShtDynsym;
    if (links && link >= shnum) BadImage("section " + std::to_string(i) + " links past the table");
    if (type == kShtStrtab && size && p[off + size - 1] != 0)
      BadImage("string table " + std::to_string(i) + " not terminated");
  }
  if (shstrndx != 0) {
    if (shstrndx >= shnum || Field<uint32_t>(sh(shstrndx), 0x04) != kShtStrtab)
      BadImage("bad section name table index");
    const uint64_t names = Field<uint64_t>(sh(shstrndx), 0x20);
    for (uint64_t i = 0; i < shnum; i++)
      if (Field<uint32_t>(sh(i), 0x00) >= std::max<uint64_t>(names, 1) && i != 0)
        BadImage("section " + std::to_string(i) + " name outside the name table");
  }
  for (uint64_t i = 0; i < shnum; i++) {
    const uint32_t type = Field<uint32_t>(sh(i), 0x04);
    if (type != kShtSymtab && type != kShtDynsym) continue;
    const uint64_t off = Field<uint64_t>(sh(i), 0x18), size = Field<uint64_t>(sh(i), 0x20);
    const uint32_t link = Field<uint32_t>(sh(i), 0x28);
    if (Field<uint32_t>(sh(link), 0x04) != kShtStrtab)
      BadImage("symbol table " + std::to_string(i) + " without a string table");
    const uint64_t strsize = Field<uint64_t>(sh(link), 0x20);
    for (uint64_t s = 0; s + 24 <= size; s += 24)
      if (Field<uint32_t>(p + off + s, 0) >= std::max<uint64_t>(strsize, 1))
        BadImage("symbol name outside its string table");
  }
}

// A fatbin (header magic 0xBA55ED50: u32 magic, u16 version, u16 header size, u64 size of the
// entries): it and each entry (u16 kind, u16, u32 header size, u64 payload size) lie within the
// image; uncompressed ELF payloads are checked as above. The fatbin *wrapper* (0x466243B1) that
// host compilers emit holds host pointers, which bytes from JavaScript cannot meaningfully hold.
void CheckFatbin(const uint8_t* p, uint64_t len) {
  if (len < 16) BadImage("fatbin header cut short");
  const uint64_t head = Field<uint16_t>(p, 6), body = Field<uint64_t>(p, 8);
  if (head < 16 || !Within(head, 1, body, len)) BadImage("fatbin size beyond the image");
  const uint64_t end = head + body;
  for (uint64_t at = head; at < end;) {
    if (end - at < 16) BadImage("fatbin entry cut short");
    const uint64_t ehead = Field<uint32_t>(p + at, 4), payload = Field<uint64_t>(p + at, 8);
    if (ehead < 16 || !Within(at, 1, ehead, end) || !Within(at + ehead, 1, payload, end))
      BadImage("fatbin entry outside the image");
    const uint8_t* data = p + at + ehead;
    if (payload >= 4 && std::memcmp(data,
                                    "\x7f"
                                    "ELF",
                                    4) == 0)
      CheckElf(data, payload);
    at += ehead + payload;
  }
}

// moduleLoad(image, byteOffset, byteLength) -> handle
// CUresult cuModuleLoadData(CUmodule* module, const void* image)
Napi::Value ModuleLoad(const Napi::CallbackInfo& info) {
  HostRange h = HostArg(info, 0, "image");
  // A copy: 8-byte aligned for the ELF reader, and with a NUL after the end, which PTX needs (the
  // driver reads text up to the first NUL).
  std::vector<uint8_t> image(h.data, h.data + h.bytes);
  image.push_back(0);
  const uint64_t n = h.bytes;
  if (n == 0) BadImage("empty");
  if (n >= 4 && std::memcmp(image.data(),
                            "\x7f"
                            "ELF",
                            4) == 0) {
    CheckElf(image.data(), n);
  } else if (n >= 4 && Field<uint32_t>(image.data(), 0) == 0xBA55ED50u) {
    CheckFatbin(image.data(), n);
  } else if (n >= 4 && Field<uint32_t>(image.data(), 0) == 0x466243B1u) {
    BadImage("a fatbin wrapper, which holds host pointers: pass the fatbin it points to");
  }
  auto m = std::make_shared<ModuleRes>(Enter());
  CU_CHECK(DrainedCu().cuModuleLoadData(&m->module, image.data()));
  return Wrap(info.Env(), Kind::Module, std::move(m));
}

// A kernel or global name: a string without NUL (the driver would see only the part before it).
std::string NameArg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (!info[i].IsString())
    ThrowType("ERR_INVALID_ARG_TYPE", std::string("The ") + what + " name must be a string");
  std::string name = info[i].As<Napi::String>().Utf8Value();
  if (name.find('\0') != std::string::npos)
    ThrowType("ERR_INVALID_ARG_VALUE",
              std::string("The ") + what + " name must not contain NUL characters");
  return name;
}

const std::shared_ptr<ModuleRes>& ModuleOf(const Napi::Value& v) {
  const auto& m = Unwrap<ModuleRes>(v, Kind::Module, "module");
  if (!m->Live())
    throw CuErr(CUDA_ERROR_CONTEXT_IS_DESTROYED, "cuModuleGetFunction",
                "the module was lost when its device was reset; compile it again");
  MakeCurrent(*m->ctx);
  return m;
}

// moduleFunction(module, name) -> handle
// CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name)
Napi::Value ModuleFunction(const Napi::CallbackInfo& info) {
  const auto& m = ModuleOf(info[0]);
  std::string name = NameArg(info, 1, "kernel");
  auto f = std::make_shared<FunctionRes>();
  f->module = m;
  CUresult r = DrainedCu().cuModuleGetFunction(&f->fn, m->module, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    throw CuErr(r, "cuModuleGetFunction", "no kernel named \"" + name + "\" in the module");
  CU_CHECK(r);
  return Wrap(info.Env(), Kind::Function, std::move(f));
}

// moduleGlobal(module, name) -> [ptr bigint, bytes]
// CUresult cuModuleGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name)
Napi::Value ModuleGlobal(const Napi::CallbackInfo& info) {
  const auto& m = ModuleOf(info[0]);
  std::string name = NameArg(info, 1, "global");
  CUdeviceptr p = 0;
  size_t bytes = 0;
  CUresult r = DrainedCu().cuModuleGetGlobal(&p, &bytes, m->module, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    throw CuErr(r, "cuModuleGetGlobal", "no global named \"" + name + "\" in the module");
  CU_CHECK(r);
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, Napi::BigInt::New(info.Env(), static_cast<uint64_t>(p)));
  a.Set(1u, static_cast<double>(bytes));
  return a;
}

}  // namespace

const std::shared_ptr<FunctionRes>& FunctionArg(const Napi::Value& v) {
  const auto& f = Unwrap<FunctionRes>(v, Kind::Function, "function");
  if (!f->module->Live())
    throw CuErr(CUDA_ERROR_CONTEXT_IS_DESTROYED, "cuLaunchKernel",
                "the kernel's module was lost when its device was reset; compile it again");
  MakeCurrent(*f->module->ctx);
  return f;
}

namespace {

// funcAttribute(fn, attr) -> number
// CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc)
Napi::Value FuncAttribute(const Napi::CallbackInfo& info) {
  CUfunction f = FunctionArg(info[0])->fn;
  int v = 0;
  CU_CHECK(DrainedCu().cuFuncGetAttribute(
      &v, static_cast<CUfunction_attribute>(IntArg(info, 1, "attribute")), f));
  return Napi::Number::New(info.Env(), v);
}

// funcParamInfo(fn, required) -> [offset, size, offset, size, ...] of each parameter, or null when
// the driver lacks cuFuncGetParamInfo (CUDA 12.4) and `required` is false (else
// CUDA_ERROR_NOT_SUPPORTED naming 12.4). CUresult cuFuncGetParamInfo(CUfunction func, size_t
// paramIndex, size_t* paramOffset,
//                             size_t* paramSize)
Napi::Value FuncParamInfo(const Napi::CallbackInfo& info) {
  CUfunction f = FunctionArg(info[0])->fn;
  bool required = info[1].ToBoolean();
  const DriverApi& cu = DrainedCu();
  if (!cu.cuFuncGetParamInfo) {
    if (!required) return info.Env().Null();
    RequireDriverFeature(nullptr, "cuFuncGetParamInfo", 12040);
  }
  Napi::Array out = Napi::Array::New(info.Env());
  // A kernel has at most 32764 bytes of parameters: at most that many parameters.
  for (size_t i = 0; i < 32764; i++) {
    size_t offset = 0, size = 0;
    CUresult r = cu.cuFuncGetParamInfo(f, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
    CU_CHECK(r);
    out.Set(static_cast<uint32_t>(2 * i),
            Napi::Number::New(info.Env(), static_cast<double>(offset)));
    out.Set(static_cast<uint32_t>(2 * i + 1),
            Napi::Number::New(info.Env(), static_cast<double>(size)));
  }
  return out;
}

// funcSetAttribute(fn, attr, value)
// CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
Napi::Value FuncSetAttribute(const Napi::CallbackInfo& info) {
  CUfunction f = FunctionArg(info[0])->fn;
  CU_CHECK(DrainedCu().cuFuncSetAttribute(
      f, static_cast<CUfunction_attribute>(IntArg(info, 1, "attribute")),
      IntArg(info, 2, "value")));
  return info.Env().Undefined();
}

// occupancyMaxActiveBlocks(fn, blockSize, dynamicSmem) -> blocks per SM
// CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func,
//                                                      int blockSize, size_t dynamicSMemSize)
Napi::Value OccupancyMaxActiveBlocks(const Napi::CallbackInfo& info) {
  CUfunction f = FunctionArg(info[0])->fn;
  int n = 0;
  CU_CHECK(DrainedCu().cuOccupancyMaxActiveBlocksPerMultiprocessor(
      &n, f, IntArg(info, 1, "blockSize"), SizeArg(info, 2, "sharedBytes")));
  return Napi::Number::New(info.Env(), n);
}

// occupancyMaxPotentialBlockSize(fn, dynamicSmem, blockSizeLimit) -> [minGridSize, blockSize]
// CUresult cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, CUfunction func,
//     CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)
Napi::Value OccupancyMaxPotentialBlockSize(const Napi::CallbackInfo& info) {
  CUfunction f = FunctionArg(info[0])->fn;
  int grid = 0, block = 0;
  CU_CHECK(DrainedCu().cuOccupancyMaxPotentialBlockSize(&grid, &block, f, nullptr,
                                                        SizeArg(info, 1, "sharedBytes"),
                                                        IntArg(info, 2, "blockSizeLimit")));
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, grid);
  a.Set(1u, block);
  return a;
}

}  // namespace

void InitModule(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "moduleLoad", ModuleLoad);
  NODECUDA_EXPORT(env, exports, "moduleFunction", ModuleFunction);
  NODECUDA_EXPORT(env, exports, "moduleGlobal", ModuleGlobal);
  NODECUDA_EXPORT(env, exports, "funcAttribute", FuncAttribute);
  NODECUDA_EXPORT(env, exports, "funcSetAttribute", FuncSetAttribute);
  NODECUDA_EXPORT(env, exports, "funcParamInfo", FuncParamInfo);
  NODECUDA_EXPORT(env, exports, "occupancyMaxActiveBlocks", OccupancyMaxActiveBlocks);
  NODECUDA_EXPORT(env, exports, "occupancyMaxPotentialBlockSize", OccupancyMaxPotentialBlockSize);
}

}  // namespace nodecuda
