// CUDA arrays, 2-D/3-D copies between host, (pitched) device memory and arrays, and texture and
// surface objects. Layouts, formats and defaults are decided in lib/cuda_array.ts; this file
// checks what memory safety needs (host ranges) and calls the driver.
#include "array.h"

#include <cstring>
#include <string>

#include "addon.h"
#include "async.h"
#include "context.h"

namespace nodecuda {

void ArrayRes::Destroy() {
  if (array && owned && Live() && TryMakeCurrent(*ctx)) DrainedCuUnchecked().cuArrayDestroy(array);
  array = nullptr;
  parent.reset();
}

const std::shared_ptr<ArrayRes>& ArrayArg(const Napi::Value& v, const char* what) {
  const auto& a = Unwrap<ArrayRes>(v, Kind::Array, what);
  if (!a->Usable())
    ThrowType("ERR_USE_AFTER_FREE",
              std::string("The \"") + what + "\" CUDA array was freed or its mapping has ended");
  return a;
}

namespace {

struct TexRes : Resource {
  CUtexObject tex = 0;
  std::shared_ptr<ArrayRes> array;  // kept alive while the object exists
  using Resource::Resource;
  void Destroy() {
    if (tex && Live() && TryMakeCurrent(*ctx)) DrainedCuUnchecked().cuTexObjectDestroy(tex);
    tex = 0;
    array.reset();
  }
  ~TexRes() { Destroy(); }
};

struct SurfRes : Resource {
  CUsurfObject surf = 0;
  std::shared_ptr<ArrayRes> array;
  using Resource::Resource;
  void Destroy() {
    if (surf && Live() && TryMakeCurrent(*ctx)) DrainedCuUnchecked().cuSurfObjectDestroy(surf);
    surf = 0;
    array.reset();
  }
  ~SurfRes() { Destroy(); }
};

// A non-negative integer field of a descriptor object (TS validated it; this is the backstop).
size_t Field(const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return 0;
  double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
  if (!(d >= 0) || d != static_cast<double>(static_cast<uint64_t>(d)) || d > 9007199254740991.0)
    ThrowRange("ERR_OUT_OF_RANGE",
               std::string("The \"") + name + "\" field must be a non-negative integer");
  return static_cast<size_t>(d);
}

Napi::Object ObjectArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsObject())
    ThrowType("ERR_INVALID_ARG_TYPE",
              std::string("The \"") + name + "\" argument must be an object");
  return info[i].As<Napi::Object>();
}

// arrayCreate(format, channels, width, height, depth, flags) -> handle
// CUresult cuArray3DCreate(CUarray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray)
Napi::Value ArrayCreate(const Napi::CallbackInfo& info) {
  CUDA_ARRAY3D_DESCRIPTOR d;
  std::memset(&d, 0, sizeof d);
  d.Format = static_cast<CUarray_format>(IntArg(info, 0, "format"));
  d.NumChannels = static_cast<unsigned>(IntArg(info, 1, "channels"));
  d.Width = SizeArg(info, 2, "width");
  d.Height = SizeArg(info, 3, "height");
  d.Depth = SizeArg(info, 4, "depth");
  d.Flags = static_cast<unsigned>(IntArg(info, 5, "flags"));
  auto a = std::make_shared<ArrayRes>(Enter());
  CU_CHECK(DrainedCu().cuArray3DCreate(&a->array, &d));
  return Wrap(info.Env(), Kind::Array, std::move(a));
}

// arrayDescriptor(handle) -> [format, channels, width, height, depth, flags]
// CUresult cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR* pArrayDescriptor, CUarray hArray)
Napi::Value ArrayDescriptor(const Napi::CallbackInfo& info) {
  const auto& a = ArrayArg(info[0], "array");
  MakeCurrent(*a->ctx);
  CUDA_ARRAY3D_DESCRIPTOR d;
  CU_CHECK(DrainedCu().cuArray3DGetDescriptor(&d, a->array));
  Napi::Array r = Napi::Array::New(info.Env(), 6);
  double vals[] = {double(d.Format), double(d.NumChannels), double(d.Width),
                   double(d.Height), double(d.Depth),       double(d.Flags)};
  for (uint32_t k = 0; k < 6; k++) r.Set(k, vals[k]);
  return r;
}

// arrayDestroy(handle): frees an owned array now (idempotent).
// CUresult cuArrayDestroy(CUarray hArray)
Napi::Value ArrayDestroy(const Napi::CallbackInfo& info) {
  Unwrap<ArrayRes>(info[0], Kind::Array, "array")->Destroy();
  return info.Env().Undefined();
}

// One side of a copy: {kind: 0 host | 1 device | 2 array, host, byteOffset, byteLength, ptr,
// array, x (bytes), y, z, pitch, height}. Host sides are checked against their buffer here.
void Side(const Napi::Object& o, bool src, CUDA_MEMCPY3D& p, size_t width, size_t height,
          size_t depth, std::vector<Napi::Value>& keep) {
  size_t kind = Field(o, "kind");
  size_t x = Field(o, "x"), y = Field(o, "y"), z = Field(o, "z");
  size_t pitch = Field(o, "pitch"), rows = Field(o, "height");
  CUmemorytype type;
  void* host = nullptr;
  CUdeviceptr dev = 0;
  CUarray arr = nullptr;
  if (kind == 0) {
    Napi::Value h = o.Get("host");
    uint8_t* base = nullptr;
    size_t length = 0;
    if (h.IsArrayBuffer()) {
      base = static_cast<uint8_t*>(h.As<Napi::ArrayBuffer>().Data());
      length = h.As<Napi::ArrayBuffer>().ByteLength();
    } else if (h.IsTypedArray()) {
      auto ab = h.As<Napi::TypedArray>().ArrayBuffer();
      base = static_cast<uint8_t*>(ab.Data());
      length = ab.ByteLength();
    } else {
      ThrowType("ERR_INVALID_ARG_TYPE",
                "a host side of a copy must be an ArrayBuffer or TypedArray");
    }
    size_t off = Field(o, "byteOffset"), bytes = Field(o, "byteLength");
    if (off > length || bytes > length - off)
      ThrowRange("ERR_OUT_OF_RANGE", "the host range is outside its buffer");
    if (width && height && depth) {
      // Last byte touched, in 128 bits so no product wraps.
      unsigned __int128 end = (unsigned __int128)(z + depth - 1) * pitch * rows +
                              (unsigned __int128)(y + height - 1) * pitch + x + width;
      if ((depth > 1 && rows < y + height) || (height > 1 && pitch < x + width) || end > bytes)
        ThrowRange("ERR_OUT_OF_RANGE", std::string("the 2-D/3-D copy reaches past the ") +
                                           (src ? "source" : "destination") + " host range of " +
                                           std::to_string(bytes) + " bytes");
    }
    host = base + off;
    type = CU_MEMORYTYPE_HOST;
    keep.push_back(h);
  } else if (kind == 1) {
    Napi::Value v = o.Get("ptr");
    if (!v.IsBigInt())
      ThrowType("ERR_INVALID_ARG_TYPE", "a device side of a copy needs a bigint ptr");
    bool lossless = true;
    dev = static_cast<CUdeviceptr>(v.As<Napi::BigInt>().Uint64Value(&lossless));
    type = CU_MEMORYTYPE_DEVICE;
  } else if (kind == 2) {
    Napi::Value v = o.Get("array");
    arr = ArrayArg(v, src ? "src" : "dst")->array;
    type = CU_MEMORYTYPE_ARRAY;
    keep.push_back(v);
  } else {
    ThrowRange("ERR_OUT_OF_RANGE", "unknown memory kind in a 2-D/3-D copy");
  }
  if (src) {
    p.srcMemoryType = type, p.srcHost = host, p.srcDevice = dev, p.srcArray = arr;
    p.srcXInBytes = x, p.srcY = y, p.srcZ = z, p.srcPitch = pitch, p.srcHeight = rows;
  } else {
    p.dstMemoryType = type, p.dstHost = host, p.dstDevice = dev, p.dstArray = arr;
    p.dstXInBytes = x, p.dstY = y, p.dstZ = z, p.dstPitch = pitch, p.dstHeight = rows;
  }
}

// memcpy3D(src, dst, widthInBytes, height, depth, stream|null, async) -> Promise when async
// CUresult cuMemcpy3D(const CUDA_MEMCPY3D* pCopy)
// CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D* pCopy, CUstream hStream)
Napi::Value Memcpy3D(const Napi::CallbackInfo& info) {
  CUDA_MEMCPY3D p;
  std::memset(&p, 0, sizeof p);
  p.WidthInBytes = SizeArg(info, 2, "widthInBytes");
  p.Height = SizeArg(info, 3, "height");
  p.Depth = SizeArg(info, 4, "depth");
  std::vector<Napi::Value> keep;
  Side(ObjectArg(info, 0, "src"), true, p, p.WidthInBytes, p.Height, p.Depth, keep);
  Side(ObjectArg(info, 1, "dst"), false, p, p.WidthInBytes, p.Height, p.Depth, keep);
  CUstream stream = StreamArg(info[5]);
  bool async = info[6].ToBoolean();
  ContextPtr ctx = Enter();
  bool empty = !p.WidthInBytes || !p.Height || !p.Depth;
  if (!async) {
    if (!empty)
      CU_CHECK(stream ? DrainedCu().cuMemcpy3DAsync(&p, stream) : DrainedCu().cuMemcpy3D(&p));
    if (stream && !empty) CU_CHECK(DrainedCu().cuStreamSynchronize(stream));
    return info.Env().Undefined();
  }
  if (!empty) CU_CHECK(DrainedCu().cuMemcpy3DAsync(&p, stream));
  AsyncOp op;
  op.ctx = ctx;
  // Host sides may be page-locked JS memory the DMA still uses (pageable ones were copied
  // before cuMemcpy3DAsync returned).
  op.uses_js_memory = !keep.empty();
  op.keep = std::move(keep);
  return WhenDone(info.Env(), stream, std::move(op));
}

// texObjectCreate(resource, desc) -> [handle, bigint]
// resource: {kind: 0 array | 1 linear | 2 pitch2d, array, ptr, format, channels, bytes, width,
//            height, pitch}
// desc: {addressMode: [3], filterMode, flags, maxAnisotropy, borderColor: [4]}
// CUresult cuTexObjectCreate(CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc,
//                            const CUDA_TEXTURE_DESC* pTexDesc,
//                            const CUDA_RESOURCE_VIEW_DESC* pResViewDesc)
Napi::Value TexObjectCreate(const Napi::CallbackInfo& info) {
  Napi::Object r = ObjectArg(info, 0, "resource"), t = ObjectArg(info, 1, "desc");
  CUDA_RESOURCE_DESC rd;
  std::memset(&rd, 0, sizeof rd);
  CUDA_TEXTURE_DESC td;
  std::memset(&td, 0, sizeof td);
  std::shared_ptr<ArrayRes> arr;
  size_t kind = Field(r, "kind");
  auto ptr = [&] {
    Napi::Value v = r.Get("ptr");
    if (!v.IsBigInt()) ThrowType("ERR_INVALID_ARG_TYPE", "a linear texture needs a bigint ptr");
    bool lossless = true;
    return static_cast<CUdeviceptr>(v.As<Napi::BigInt>().Uint64Value(&lossless));
  };
  if (kind == 0) {
    arr = ArrayArg(r.Get("array"), "array");
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = arr->array;
  } else if (kind == 1) {
    rd.resType = CU_RESOURCE_TYPE_LINEAR;
    rd.res.linear.devPtr = ptr();
    rd.res.linear.format = static_cast<CUarray_format>(Field(r, "format"));
    rd.res.linear.numChannels = static_cast<unsigned>(Field(r, "channels"));
    rd.res.linear.sizeInBytes = Field(r, "bytes");
  } else {
    rd.resType = CU_RESOURCE_TYPE_PITCH2D;
    rd.res.pitch2D.devPtr = ptr();
    rd.res.pitch2D.format = static_cast<CUarray_format>(Field(r, "format"));
    rd.res.pitch2D.numChannels = static_cast<unsigned>(Field(r, "channels"));
    rd.res.pitch2D.width = Field(r, "width");
    rd.res.pitch2D.height = Field(r, "height");
    rd.res.pitch2D.pitchInBytes = Field(r, "pitch");
  }
  Napi::Value modes = t.Get("addressMode");
  for (uint32_t k = 0; k < 3; k++)
    td.addressMode[k] = static_cast<CUaddress_mode>(
        modes.IsArray() ? modes.As<Napi::Array>().Get(k).ToNumber().Uint32Value() : 0);
  td.filterMode = static_cast<CUfilter_mode>(Field(t, "filterMode"));
  td.flags = static_cast<unsigned>(Field(t, "flags"));
  td.maxAnisotropy = static_cast<unsigned>(Field(t, "maxAnisotropy"));
  Napi::Value border = t.Get("borderColor");
  for (uint32_t k = 0; k < 4; k++)
    td.borderColor[k] =
        border.IsArray() ? border.As<Napi::Array>().Get(k).ToNumber().FloatValue() : 0.0f;
  auto tex = std::make_shared<TexRes>(arr ? arr->ctx : Enter());
  MakeCurrent(*tex->ctx);
  CU_CHECK(DrainedCu().cuTexObjectCreate(&tex->tex, &rd, &td, nullptr));
  tex->array = std::move(arr);
  uint64_t value = tex->tex;
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Wrap(info.Env(), Kind::TexObject, std::move(tex)));
  out.Set(1u, Napi::BigInt::New(info.Env(), value));
  return out;
}

// texObjectDestroy(handle) (idempotent)
// CUresult cuTexObjectDestroy(CUtexObject texObject)
Napi::Value TexObjectDestroy(const Napi::CallbackInfo& info) {
  Unwrap<TexRes>(info[0], Kind::TexObject, "texture")->Destroy();
  return info.Env().Undefined();
}

// surfObjectCreate(array) -> [handle, bigint]
// CUresult cuSurfObjectCreate(CUsurfObject* pSurfObject, const CUDA_RESOURCE_DESC* pResDesc)
Napi::Value SurfObjectCreate(const Napi::CallbackInfo& info) {
  auto arr = ArrayArg(info[0], "array");
  CUDA_RESOURCE_DESC rd;
  std::memset(&rd, 0, sizeof rd);
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  rd.res.array.hArray = arr->array;
  auto s = std::make_shared<SurfRes>(arr->ctx);
  MakeCurrent(*s->ctx);
  CU_CHECK(DrainedCu().cuSurfObjectCreate(&s->surf, &rd));
  s->array = std::move(arr);
  uint64_t value = s->surf;
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Wrap(info.Env(), Kind::SurfObject, std::move(s)));
  out.Set(1u, Napi::BigInt::New(info.Env(), value));
  return out;
}

// surfObjectDestroy(handle) (idempotent)
// CUresult cuSurfObjectDestroy(CUsurfObject surfObject)
Napi::Value SurfObjectDestroy(const Napi::CallbackInfo& info) {
  Unwrap<SurfRes>(info[0], Kind::SurfObject, "surface")->Destroy();
  return info.Env().Undefined();
}

}  // namespace

void InitArray(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "arrayCreate", ArrayCreate);
  NODECUDA_EXPORT(env, exports, "arrayDescriptor", ArrayDescriptor);
  NODECUDA_EXPORT(env, exports, "arrayDestroy", ArrayDestroy);
  NODECUDA_EXPORT(env, exports, "memcpy3D", Memcpy3D);
  NODECUDA_EXPORT(env, exports, "texObjectCreate", TexObjectCreate);
  NODECUDA_EXPORT(env, exports, "texObjectDestroy", TexObjectDestroy);
  NODECUDA_EXPORT(env, exports, "surfObjectCreate", SurfObjectCreate);
  NODECUDA_EXPORT(env, exports, "surfObjectDestroy", SurfObjectDestroy);
}

}  // namespace nodecuda
