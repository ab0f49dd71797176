// fakecuda: cuGetProcAddress, and the driver version the double pretends to be.
//
// FAKECUDA_VERSION (default: the headers' CUDA_VERSION) is what cuDriverGetVersion reports, and
// cuGetProcAddress answers as a driver of that version does: for a base name and a requested
// CUDA version it returns the newest variant no newer than both (cuCtxCreate at 3020 is
// cuCtxCreate_v2; at 12050 cuCtxCreate_v4), and CUDA_ERROR_NOT_FOUND for entry points that
// driver did not have yet. The table below lists each exported variant with the CUDA version
// that introduced it (cudaTypedefs.h's PFN_<name>_v<version>).
#include <cstring>

#include "fakecuda_state.h"

// The variants older than the names cuda.h 13 maps to (the double's own entry points).
FAKE_API CUresult cuCtxCreate_v2(CUcontext* out, unsigned flags, CUdevice d) {
  return fakecuda::CtxCreate(out, flags, d);
}
#undef cuEventElapsedTime
FAKE_API CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  return fakecuda::EventElapsedTime(ms, a, b);
}

namespace {

struct Variant {
  const char* name;
  int version;
  void* fn;
};

// clang-format off
#define V(name, version) {#name, version, reinterpret_cast<void*>(&name)}
const Variant kVariants[] = {
  V(cuInit, 2000), V(cuDriverGetVersion, 2020), V(cuGetErrorName, 6000),
  V(cuGetErrorString, 6000), V(cuDeviceGetCount, 2000), V(cuDeviceGet, 2000),
  V(cuDeviceGetName, 2000), V(cuDeviceTotalMem, 3020), V(cuDeviceGetAttribute, 2000),
  V(cuDeviceGetPCIBusId, 4010), V(cuDevicePrimaryCtxRetain, 7000),
  V(cuDevicePrimaryCtxRelease, 11000), V(cuDevicePrimaryCtxReset, 11000),
  {"cuCtxCreate", 3020, reinterpret_cast<void*>(&cuCtxCreate_v2)}, V(cuCtxCreate, 12050),
  V(cuCtxDestroy, 4000), V(cuCtxSetCurrent, 4000), V(cuCtxGetCurrent, 4000),
  V(cuCtxSynchronize, 2000), V(cuMemGetInfo, 3020), V(cuMemAlloc, 3020), V(cuMemFree, 3020),
  V(cuMemAllocFromPoolAsync, 11020), V(cuMemFreeAsync, 11020), V(cuDeviceGetDefaultMemPool, 11020),
  V(cuMemPoolSetAttribute, 11020), V(cuMemPoolGetAttribute, 11020), V(cuMemPoolTrimTo, 11020),
  V(cuMemcpyHtoD, 3020), V(cuMemcpyDtoH, 3020), V(cuMemcpyDtoD, 3020), V(cuMemcpyHtoDAsync, 3020),
  V(cuMemcpyDtoHAsync, 3020), V(cuMemcpyDtoDAsync, 3020), V(cuMemsetD8, 3020),
  V(cuMemsetD16, 3020), V(cuMemsetD32, 3020), V(cuMemsetD8Async, 3020), V(cuMemsetD16Async, 3020),
  V(cuMemsetD32Async, 3020), V(cuMemHostRegister, 6050), V(cuMemHostUnregister, 4000),
  V(cuMemAllocHost, 3020), V(cuMemFreeHost, 2000), V(cuStreamCreate, 2000),
  V(cuStreamDestroy, 4000), V(cuStreamSynchronize, 2000), V(cuStreamQuery, 2000),
  V(cuStreamWaitEvent, 3020), V(cuEventCreate, 2000), V(cuEventDestroy, 4000),
  V(cuEventRecord, 2000), V(cuEventSynchronize, 2000), V(cuEventQuery, 2000),
  V(cuEventElapsedTime, 2000), {"cuEventElapsedTime", 12080, reinterpret_cast<void*>(&cuEventElapsedTime_v2)},
  V(cuModuleLoadData, 2000), V(cuModuleUnload, 2000), V(cuModuleGetFunction, 2000),
  V(cuModuleGetGlobal, 3020), V(cuFuncGetAttribute, 2020), V(cuFuncSetAttribute, 9000),
  V(cuFuncGetParamInfo, 12040), V(cuLaunchKernel, 4000),
  V(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050), V(cuOccupancyMaxPotentialBlockSize, 6050),
  V(cuArray3DCreate, 3020), V(cuArray3DGetDescriptor, 3020), V(cuArrayDestroy, 2000),
  V(cuMemcpy3D, 3020), V(cuMemcpy3DAsync, 3020), V(cuTexObjectCreate, 5000),
  V(cuTexObjectDestroy, 5000), V(cuSurfObjectCreate, 5000), V(cuSurfObjectDestroy, 5000),
  V(cuGraphicsMapResources, 3000), V(cuGraphicsUnmapResources, 3000),
  V(cuGraphicsResourceGetMappedPointer, 3020), V(cuGraphicsSubResourceGetMappedArray, 3000),
  V(cuGraphicsUnregisterResource, 3000), V(cuGraphicsResourceSetMapFlags, 6050),
  V(cuDeviceCanAccessPeer, 4000), V(cuCtxEnablePeerAccess, 4000), V(cuMemPoolSetAccess, 11020),
  V(cuMemcpyPeerAsync, 4000),
};
#undef V
// clang-format on

CUresult Lookup(const char* symbol, void** pfn, int version, CUdriverProcAddressQueryResult* st) {
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  const Variant* best = nullptr;
  bool known = false;  // this "driver" has the symbol at all
  for (const Variant& v : kVariants) {
    if (std::strcmp(v.name, symbol) != 0 || v.version > fakecuda::DriverVersion()) continue;
    known = true;
    if (v.version <= version && (!best || v.version > best->version)) best = &v;
  }
  if (st)
    *st = best    ? CU_GET_PROC_ADDRESS_SUCCESS
          : known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                  : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (!best) return CUDA_ERROR_NOT_FOUND;
  *pfn = best->fn;
  return CUDA_SUCCESS;
}

}  // namespace

int fakecuda::DriverVersion() {
  static const int v = Env("FAKECUDA_VERSION", CUDA_VERSION);
  return v;
}

FAKE_API CUresult cuDriverGetVersion(int* v) {
  return v ? (*v = fakecuda::DriverVersion(), CUDA_SUCCESS) : CUDA_ERROR_INVALID_VALUE;
}
// CUDA 12.0's form (cuda.h: cuGetProcAddress is cuGetProcAddress_v2).
FAKE_API CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                   CUdriverProcAddressQueryResult* status) {
  return Lookup(symbol, pfn, version, status);
}
// CUDA 11.3's form, exported under its plain name.
extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v1_export(
    const char* symbol, void** pfn, int version, cuuint64_t flags) __asm__("cuGetProcAddress");
CUresult cuGetProcAddress_v1_export(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  return Lookup(symbol, pfn, version, nullptr);
}
