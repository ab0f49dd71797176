// CUDA side of OpenGL interop: registering GL buffers and textures/renderbuffers as CUDA graphics
// resources, mapping them (one or many at once), the mapped pointer or CUDA array, unmapping and
// unregistering. State checks (map twice, unmap when not mapped, use after unregister) are
// lib/gl's; here they are the backstop that keeps the driver from seeing a bad sequence.
#include <memory>
#include <vector>

#include "addon.h"
#include "array.h"
#include "context.h"
#include "gl.h"

namespace nodecuda {
namespace {

// cudaGL.h's prototypes (its header needs GL's; the symbols come from the opened driver).
using RegisterBufferFn = CUresult (*)(CUgraphicsResource*, GLuint, unsigned);
using RegisterImageFn = CUresult (*)(CUgraphicsResource*, GLuint, GLenum, unsigned);

struct GraphicsRes : Resource {
  CUgraphicsResource res = nullptr;
  bool image = false;
  bool mapped = false;
  // Bumped at every unmap: arrays taken from a mapping check it (ArrayRes::Usable).
  std::shared_ptr<std::atomic<uint64_t>> epoch = std::make_shared<std::atomic<uint64_t>>(0);
  using Resource::Resource;
  void Unmap(CUstream s) {
    if (!mapped) return;
    mapped = false;
    epoch->fetch_add(1);
    if (res && Live() && TryMakeCurrent(*ctx))
      DrainedCuUnchecked().cuGraphicsUnmapResources(1, &res, s);
  }
  // Unmaps (legacy stream) and unregisters; idempotent, never throws (finalizers).
  void Release() {
    Unmap(nullptr);
    if (res && Live() && TryMakeCurrent(*ctx))
      DrainedCuUnchecked().cuGraphicsUnregisterResource(res);
    res = nullptr;
  }
  ~GraphicsRes() { Release(); }
};

const std::shared_ptr<GraphicsRes>& Res(const Napi::Value& v) {
  const auto& r = Unwrap<GraphicsRes>(v, Kind::GraphicsResource, "resource");
  if (!r->res) ThrowType("ERR_USE_AFTER_FREE", "The graphics resource was unregistered");
  return r;
}

// Both registration functions are CUDA 3.0's (cudaGLTypedefs.h PFN_..._v3000).
template <typename Fn>
Fn DriverFn(const char* name) {
  DrainedCu();  // throws CUDA_DRIVER_NOT_FOUND & co first
  auto fn = reinterpret_cast<Fn>(DriverSymbol(name, 3000));
  if (!fn) throw CuErr(CUDA_ERROR_NOT_SUPPORTED, name, "this driver has no OpenGL interop");
  return fn;
}

// glRegisterBuffer(bufferName, flags) -> handle
// CUresult cuGraphicsGLRegisterBuffer(CUgraphicsResource* pCudaResource, GLuint buffer,
//                                     unsigned int Flags)
Napi::Value GlRegisterBuffer(const Napi::CallbackInfo& info) {
  GLuint name = static_cast<GLuint>(IntArg(info, 0, "buffer"));
  unsigned flags = static_cast<unsigned>(IntArg(info, 1, "flags"));
  GlCurrent("cuGraphicsGLRegisterBuffer");
  auto fn = DriverFn<RegisterBufferFn>("cuGraphicsGLRegisterBuffer");
  auto r = std::make_shared<GraphicsRes>(Enter());
  CU_CHECK(fn(&r->res, name, flags));
  return Wrap(info.Env(), Kind::GraphicsResource, std::move(r));
}

// glRegisterImage(name, target, flags) -> handle
// CUresult cuGraphicsGLRegisterImage(CUgraphicsResource* pCudaResource, GLuint image,
//                                    GLenum target, unsigned int Flags)
Napi::Value GlRegisterImage(const Napi::CallbackInfo& info) {
  GLuint name = static_cast<GLuint>(IntArg(info, 0, "image"));
  GLenum target = static_cast<GLenum>(IntArg(info, 1, "target"));
  unsigned flags = static_cast<unsigned>(IntArg(info, 2, "flags"));
  GlCurrent("cuGraphicsGLRegisterImage");
  auto fn = DriverFn<RegisterImageFn>("cuGraphicsGLRegisterImage");
  auto r = std::make_shared<GraphicsRes>(Enter());
  r->image = true;
  CU_CHECK(fn(&r->res, name, target, flags));
  return Wrap(info.Env(), Kind::GraphicsResource, std::move(r));
}

// The resources of a JS array of handles, all in one context, all (un)mapped as `mapped`.
std::vector<std::shared_ptr<GraphicsRes>> Group(const Napi::Value& v, bool mapped) {
  if (!v.IsArray()) ThrowType("ERR_INVALID_ARG_TYPE", "resources must be an array");
  Napi::Array a = v.As<Napi::Array>();
  std::vector<std::shared_ptr<GraphicsRes>> out;
  for (uint32_t i = 0; i < a.Length(); i++) {
    const auto& r = Res(a.Get(i));
    if (r->mapped != mapped)
      ThrowType(mapped ? "ERR_NOT_MAPPED" : "ERR_ALREADY_MAPPED",
                mapped ? "The resource is not mapped" : "The resource is mapped already");
    if (!out.empty() && out[0]->ctx != r->ctx)
      ThrowType("ERR_INVALID_ARG_VALUE", "resources mapped together must share a CUDA context");
    for (const auto& o : out)
      if (o == r) ThrowType("ERR_INVALID_ARG_VALUE", "a resource is listed twice");
    out.push_back(r);
  }
  return out;
}

// graphicsMap(resources[], stream|null) / graphicsUnmap(resources[], stream|null)
// CUresult cuGraphicsMapResources(unsigned int count, CUgraphicsResource* resources,
//                                 CUstream hStream)
// CUresult cuGraphicsUnmapResources(unsigned int count, CUgraphicsResource* resources,
//                                   CUstream hStream)
template <bool kMap>
Napi::Value GraphicsMap(const Napi::CallbackInfo& info) {
  auto group = Group(info[0], !kMap);
  CUstream stream = StreamArg(info[1]);
  if (group.empty()) return info.Env().Undefined();
  MakeCurrent(*group[0]->ctx);
  std::vector<CUgraphicsResource> raw;
  for (const auto& r : group) raw.push_back(r->res);
  unsigned n = static_cast<unsigned>(raw.size());
  if (kMap) {
    CU_CHECK(DrainedCu().cuGraphicsMapResources(n, raw.data(), stream));
    for (const auto& r : group) r->mapped = true;
  } else {
    for (const auto& r : group) r->mapped = false, r->epoch->fetch_add(1);
    CU_CHECK(DrainedCu().cuGraphicsUnmapResources(n, raw.data(), stream));
    // Conservative: CUDA's writes are complete before any GL call made after unmap returns (the
    // driver's own ordering is relied on nowhere). Added while chasing examples/gl-interop.js
    // failing after the full test suite; that failure has another cause (docs/gl.md, Known issues).
    CU_CHECK(DrainedCu().cuStreamSynchronize(stream));
  }
  return info.Env().Undefined();
}

// graphicsMappedPointer(resource) -> [bigint, bytes]
// CUresult cuGraphicsResourceGetMappedPointer(CUdeviceptr* pDevPtr, size_t* pSize,
//                                             CUgraphicsResource resource)
Napi::Value GraphicsMappedPointer(const Napi::CallbackInfo& info) {
  const auto& r = Res(info[0]);
  if (!r->mapped) ThrowType("ERR_NOT_MAPPED", "The resource is not mapped");
  MakeCurrent(*r->ctx);
  CUdeviceptr p = 0;
  size_t bytes = 0;
  CU_CHECK(DrainedCu().cuGraphicsResourceGetMappedPointer(&p, &bytes, r->res));
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Napi::BigInt::New(info.Env(), static_cast<uint64_t>(p)));
  out.Set(1u, static_cast<double>(bytes));
  return out;
}

// graphicsMappedArray(resource, index, level) -> array handle (valid until unmap)
// CUresult cuGraphicsSubResourceGetMappedArray(CUarray* pArray, CUgraphicsResource resource,
//                                              unsigned int arrayIndex, unsigned int mipLevel)
Napi::Value GraphicsMappedArray(const Napi::CallbackInfo& info) {
  const auto& r = Res(info[0]);
  if (!r->mapped) ThrowType("ERR_NOT_MAPPED", "The resource is not mapped");
  unsigned index = static_cast<unsigned>(IntArg(info, 1, "index"));
  unsigned level = static_cast<unsigned>(IntArg(info, 2, "level"));
  MakeCurrent(*r->ctx);
  auto a = std::make_shared<ArrayRes>(r->ctx);
  CU_CHECK(DrainedCu().cuGraphicsSubResourceGetMappedArray(&a->array, r->res, index, level));
  a->owned = false;
  a->map_epoch = r->epoch;
  a->epoch = r->epoch->load();
  a->parent = r;
  return Wrap(info.Env(), Kind::Array, std::move(a));
}

// graphicsSetMapFlags(resource, flags) (only while not mapped)
// CUresult cuGraphicsResourceSetMapFlags(CUgraphicsResource resource, unsigned int flags)
Napi::Value GraphicsSetMapFlags(const Napi::CallbackInfo& info) {
  const auto& r = Res(info[0]);
  if (r->mapped) ThrowType("ERR_ALREADY_MAPPED", "Map flags change only while unmapped");
  MakeCurrent(*r->ctx);
  CU_CHECK(DrainedCu().cuGraphicsResourceSetMapFlags(
      r->res, static_cast<unsigned>(IntArg(info, 1, "flags"))));
  return info.Env().Undefined();
}

// graphicsUnregister(resource) (idempotent; unmaps first)
// CUresult cuGraphicsUnregisterResource(CUgraphicsResource resource)
Napi::Value GraphicsUnregister(const Napi::CallbackInfo& info) {
  const auto& r = Unwrap<GraphicsRes>(info[0], Kind::GraphicsResource, "resource");
  if (!r->res) return info.Env().Undefined();
  if (r->mapped) {
    MakeCurrent(*r->ctx);
    r->mapped = false;
    r->epoch->fetch_add(1);
    CU_CHECK(DrainedCu().cuGraphicsUnmapResources(1, &r->res, nullptr));
  }
  CUgraphicsResource res = r->res;
  r->res = nullptr;
  if (r->Live()) {
    MakeCurrent(*r->ctx);
    CU_CHECK(DrainedCu().cuGraphicsUnregisterResource(res));
  }
  return info.Env().Undefined();
}

}  // namespace

void InitGlInterop(Napi::Env env, Napi::Object exports) {
  NODECUDA_GL_EXPORT(env, exports, "glRegisterBuffer", GlRegisterBuffer);
  NODECUDA_GL_EXPORT(env, exports, "glRegisterImage", GlRegisterImage);
  NODECUDA_GL_EXPORT(env, exports, "graphicsMap", GraphicsMap<true>);
  NODECUDA_GL_EXPORT(env, exports, "graphicsUnmap", GraphicsMap<false>);
  NODECUDA_GL_EXPORT(env, exports, "graphicsMappedPointer", GraphicsMappedPointer);
  NODECUDA_GL_EXPORT(env, exports, "graphicsMappedArray", GraphicsMappedArray);
  NODECUDA_GL_EXPORT(env, exports, "graphicsSetMapFlags", GraphicsSetMapFlags);
  NODECUDA_GL_EXPORT(env, exports, "graphicsUnregister", GraphicsUnregister);
}

}  // namespace nodecuda
