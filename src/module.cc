// Modules (loaded CUBIN/PTX), their functions and globals, function attributes and occupancy.
#include "addon.h"
#include "handles.h"

namespace nodecuda {
namespace {

// moduleLoad(image, byteOffset, byteLength) -> handle
// CUresult cuModuleLoadData(CUmodule* module, const void* image)
Napi::Value ModuleLoad(const Napi::CallbackInfo& info) {
  HostRange h = HostArg(info, 0, "image");
  // PTX must be NUL-terminated; a copy with a terminator costs little next to loading.
  std::vector<uint8_t> image(h.data, h.data + h.bytes);
  image.push_back(0);
  auto m = std::make_shared<ModuleRes>(Enter());
  CU_CHECK(Cu().cuModuleLoadData(&m->module, image.data()));
  return Wrap(info.Env(), Kind::Module, std::move(m));
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
  std::string name = info[1].As<Napi::String>().Utf8Value();
  auto f = std::make_shared<FunctionRes>();
  f->module = m;
  CUresult r = Cu().cuModuleGetFunction(&f->fn, m->module, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    throw CuErr(r, "cuModuleGetFunction", "no kernel named \"" + name + "\" in the module");
  CU_CHECK(r);
  return Wrap(info.Env(), Kind::Function, std::move(f));
}

// moduleGlobal(module, name) -> [ptr bigint, bytes]
// CUresult cuModuleGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name)
Napi::Value ModuleGlobal(const Napi::CallbackInfo& info) {
  const auto& m = ModuleOf(info[0]);
  std::string name = info[1].As<Napi::String>().Utf8Value();
  CUdeviceptr p = 0;
  size_t bytes = 0;
  CUresult r = Cu().cuModuleGetGlobal(&p, &bytes, m->module, name.c_str());
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
  CU_CHECK(Cu().cuFuncGetAttribute(
      &v, static_cast<CUfunction_attribute>(IntArg(info, 1, "attribute")), f));
  return Napi::Number::New(info.Env(), v);
}

// funcSetAttribute(fn, attr, value)
// CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
Napi::Value FuncSetAttribute(const Napi::CallbackInfo& info) {
  CUfunction f = FunctionArg(info[0])->fn;
  CU_CHECK(Cu().cuFuncSetAttribute(f,
                                   static_cast<CUfunction_attribute>(IntArg(info, 1, "attribute")),
                                   IntArg(info, 2, "value")));
  return info.Env().Undefined();
}

// occupancyMaxActiveBlocks(fn, blockSize, dynamicSmem) -> blocks per SM
// CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func,
//                                                      int blockSize, size_t dynamicSMemSize)
Napi::Value OccupancyMaxActiveBlocks(const Napi::CallbackInfo& info) {
  CUfunction f = FunctionArg(info[0])->fn;
  int n = 0;
  CU_CHECK(Cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, IntArg(info, 1, "blockSize"),
                                                            SizeArg(info, 2, "sharedBytes")));
  return Napi::Number::New(info.Env(), n);
}

// occupancyMaxPotentialBlockSize(fn, dynamicSmem, blockSizeLimit) -> [minGridSize, blockSize]
// CUresult cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, CUfunction func,
//     CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)
Napi::Value OccupancyMaxPotentialBlockSize(const Napi::CallbackInfo& info) {
  CUfunction f = FunctionArg(info[0])->fn;
  int grid = 0, block = 0;
  CU_CHECK(Cu().cuOccupancyMaxPotentialBlockSize(&grid, &block, f, nullptr,
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
  NODECUDA_EXPORT(env, exports, "occupancyMaxActiveBlocks", OccupancyMaxActiveBlocks);
  NODECUDA_EXPORT(env, exports, "occupancyMaxPotentialBlockSize", OccupancyMaxPotentialBlockSize);
}

}  // namespace nodecuda
