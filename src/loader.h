// Function tables for libcuda and libnvrtc, opened with dlopen on first use (never linked), so
// the addon loads on machines without a driver or a toolkit.
//
// Driver entry points are resolved with the driver's own cuGetProcAddress, each at the CUDA
// version of the variant the code calls (X(name, version, abi_symbol): the prototype is
// cudaTypedefs.h's PFN_<name>_v<version>). Asking for the variant rather than the newest name the
// headers map to (cuda.h 13 maps cuCtxCreate to cuCtxCreate_v4, a CUDA 12.5 entry point) is what
// lets drivers from CUDA 12.0 (R525) on load this addon. `abi_symbol` is that variant's exported
// name, used with dlsym only where the driver has no cuGetProcAddress.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <nvrtc.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace nodecuda {

// clang-format off
#define NODECUDA_DRIVER_FUNCS(X) \
  X(cuInit, 2000, cuInit) \
  X(cuDriverGetVersion, 2020, cuDriverGetVersion) \
  X(cuGetErrorName, 6000, cuGetErrorName) \
  X(cuGetErrorString, 6000, cuGetErrorString) \
  X(cuDeviceGetCount, 2000, cuDeviceGetCount) \
  X(cuDeviceGet, 2000, cuDeviceGet) \
  X(cuDeviceGetName, 2000, cuDeviceGetName) \
  X(cuDeviceTotalMem, 3020, cuDeviceTotalMem_v2) \
  X(cuDeviceGetAttribute, 2000, cuDeviceGetAttribute) \
  X(cuDeviceGetPCIBusId, 4010, cuDeviceGetPCIBusId) \
  X(cuDevicePrimaryCtxRetain, 7000, cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease, 11000, cuDevicePrimaryCtxRelease_v2) \
  X(cuDevicePrimaryCtxReset, 11000, cuDevicePrimaryCtxReset_v2) \
  X(cuCtxCreate, 3020, cuCtxCreate_v2) \
  X(cuCtxDestroy, 4000, cuCtxDestroy_v2) \
  X(cuCtxSetCurrent, 4000, cuCtxSetCurrent) \
  X(cuCtxGetCurrent, 4000, cuCtxGetCurrent) \
  X(cuCtxSynchronize, 2000, cuCtxSynchronize) \
  X(cuMemGetInfo, 3020, cuMemGetInfo_v2) \
  X(cuMemAlloc, 3020, cuMemAlloc_v2) \
  X(cuMemFree, 3020, cuMemFree_v2) \
  X(cuMemAllocFromPoolAsync, 11020, cuMemAllocFromPoolAsync) \
  X(cuMemFreeAsync, 11020, cuMemFreeAsync) \
  X(cuDeviceGetDefaultMemPool, 11020, cuDeviceGetDefaultMemPool) \
  X(cuMemPoolSetAttribute, 11020, cuMemPoolSetAttribute) \
  X(cuMemPoolGetAttribute, 11020, cuMemPoolGetAttribute) \
  X(cuMemPoolTrimTo, 11020, cuMemPoolTrimTo) \
  X(cuMemcpyHtoD, 3020, cuMemcpyHtoD_v2) \
  X(cuMemcpyDtoH, 3020, cuMemcpyDtoH_v2) \
  X(cuMemcpyDtoD, 3020, cuMemcpyDtoD_v2) \
  X(cuMemcpyHtoDAsync, 3020, cuMemcpyHtoDAsync_v2) \
  X(cuMemcpyDtoHAsync, 3020, cuMemcpyDtoHAsync_v2) \
  X(cuMemcpyDtoDAsync, 3020, cuMemcpyDtoDAsync_v2) \
  X(cuMemsetD8, 3020, cuMemsetD8_v2) \
  X(cuMemsetD16, 3020, cuMemsetD16_v2) \
  X(cuMemsetD32, 3020, cuMemsetD32_v2) \
  X(cuMemsetD8Async, 3020, cuMemsetD8Async) \
  X(cuMemsetD16Async, 3020, cuMemsetD16Async) \
  X(cuMemsetD32Async, 3020, cuMemsetD32Async) \
  X(cuMemHostRegister, 6050, cuMemHostRegister_v2) \
  X(cuMemHostUnregister, 4000, cuMemHostUnregister) \
  X(cuMemAllocHost, 3020, cuMemAllocHost_v2) \
  X(cuMemFreeHost, 2000, cuMemFreeHost) \
  X(cuStreamCreate, 2000, cuStreamCreate) \
  X(cuStreamDestroy, 4000, cuStreamDestroy_v2) \
  X(cuStreamSynchronize, 2000, cuStreamSynchronize) \
  X(cuStreamQuery, 2000, cuStreamQuery) \
  X(cuStreamWaitEvent, 3020, cuStreamWaitEvent) \
  X(cuEventCreate, 2000, cuEventCreate) \
  X(cuEventDestroy, 4000, cuEventDestroy_v2) \
  X(cuEventRecord, 2000, cuEventRecord) \
  X(cuEventSynchronize, 2000, cuEventSynchronize) \
  X(cuEventQuery, 2000, cuEventQuery) \
  X(cuEventElapsedTime, 2000, cuEventElapsedTime) \
  X(cuModuleLoadData, 2000, cuModuleLoadData) \
  X(cuModuleUnload, 2000, cuModuleUnload) \
  X(cuModuleGetFunction, 2000, cuModuleGetFunction) \
  X(cuModuleGetGlobal, 3020, cuModuleGetGlobal_v2) \
  X(cuFuncGetAttribute, 2020, cuFuncGetAttribute) \
  X(cuFuncSetAttribute, 9000, cuFuncSetAttribute) \
  X(cuLaunchKernel, 4000, cuLaunchKernel) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuOccupancyMaxPotentialBlockSize, 6050, cuOccupancyMaxPotentialBlockSize) \
  X(cuArray3DCreate, 3020, cuArray3DCreate_v2) \
  X(cuArray3DGetDescriptor, 3020, cuArray3DGetDescriptor_v2) \
  X(cuArrayDestroy, 2000, cuArrayDestroy) \
  X(cuMemcpy3D, 3020, cuMemcpy3D_v2) \
  X(cuMemcpy3DAsync, 3020, cuMemcpy3DAsync_v2) \
  X(cuTexObjectCreate, 5000, cuTexObjectCreate) \
  X(cuTexObjectDestroy, 5000, cuTexObjectDestroy) \
  X(cuSurfObjectCreate, 5000, cuSurfObjectCreate) \
  X(cuSurfObjectDestroy, 5000, cuSurfObjectDestroy) \
  X(cuGraphicsMapResources, 3000, cuGraphicsMapResources) \
  X(cuGraphicsUnmapResources, 3000, cuGraphicsUnmapResources) \
  X(cuGraphicsResourceGetMappedPointer, 3020, cuGraphicsResourceGetMappedPointer_v2) \
  X(cuGraphicsSubResourceGetMappedArray, 3000, cuGraphicsSubResourceGetMappedArray) \
  X(cuGraphicsUnregisterResource, 3000, cuGraphicsUnregisterResource) \
  X(cuGraphicsResourceSetMapFlags, 6050, cuGraphicsResourceSetMapFlags_v2) \
  X(cuDeviceCanAccessPeer, 4000, cuDeviceCanAccessPeer) \
  X(cuCtxEnablePeerAccess, 4000, cuCtxEnablePeerAccess) \
  X(cuMemPoolSetAccess, 11020, cuMemPoolSetAccess) \
  X(cuMemcpyPeerAsync, 4000, cuMemcpyPeerAsync)

// Entry points newer than CUDA 12.0: resolved when the driver has them, null otherwise; each use
// checks with DriverFeature() and fails with CUDA_ERROR_NOT_SUPPORTED naming the version needed.
#define NODECUDA_DRIVER_OPTIONAL_FUNCS(X) \
  X(cuFuncGetParamInfo, 12040, cuFuncGetParamInfo)

#define NODECUDA_NVRTC_FUNCS(X) \
  X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(nvrtcDestroyProgram) \
  X(nvrtcCompileProgram) X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcGetCUBINSize) \
  X(nvrtcGetCUBIN) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcAddNameExpression) \
  X(nvrtcGetLoweredName) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)
// clang-format on

#define NODECUDA_DECLARE_FN(name) decltype(&::name) name = nullptr;
// The member is named as cuda.h spells the call (cuMemAlloc expands to cuMemAlloc_v2 at both).
#define NODECUDA_DECLARE_CU(name, version, sym) PFN_##name##_v##version name = nullptr;

// The oldest driver accepted: CUDA 12.0 (R525). Older ones are refused with this in the message.
constexpr int kMinDriverVersion = 12000;

struct DriverApi {
  NODECUDA_DRIVER_FUNCS(NODECUDA_DECLARE_CU)
  NODECUDA_DRIVER_OPTIONAL_FUNCS(NODECUDA_DECLARE_CU)
};
struct NvrtcApi {
  NODECUDA_NVRTC_FUNCS(NODECUDA_DECLARE_FN)
};

// Outcome of opening libcuda and calling cuInit(0), decided once per process.
struct DriverState {
  int status = CUDA_ERROR_NOT_INITIALIZED;    // CUDA_SUCCESS when usable; may be kDriverTooOld
  bool found = false;                         // the library opened and its symbols resolved
  std::string message;                        // what to do when it is not usable
  std::string path;                           // the library asked for (env or libcuda.so.1)
  std::string dlopen_error;                   // dlerror() when it did not open
  int version = 0;                            // cuDriverGetVersion (0 when unknown)
  bool proc_address = false;                  // entry points came from cuGetProcAddress
  std::vector<std::string> missing_optional;  // NODECUDA_DRIVER_OPTIONAL_FUNCS not offered
};

// Opens libcuda.so.1 (or $NODECUDA_LIBCUDA) and runs cuInit once; never throws.
const DriverState& LoadDriver();
// The three ways to the driver table. The Drained ones first submit this thread's queued kernel
// launches (launch_queue.cc), so a driver call keeps its order with launches; RawCu() does not.
//
// Drains the launch queue, throws a queued launch's failure, then returns the table; throws CuErr
// (CUDA_DRIVER_NOT_FOUND or the cuInit error) when the driver is unusable.
const DriverApi& DrainedCu();
// Drains the launch queue (without throwing its failures) and returns the table without the
// usability check; only after LoadDriver().found.
const DriverApi& DrainedCuUnchecked();
// Returns the table and does nothing else: for the launch queue's own calls and error names only.
const DriverApi& RawCu();
// Drains the launch queue; `report`: throw the failure of a queued launch (DrainedCu) or not.
void BeforeDriverCall(bool report);
// A driver entry point outside the table (cudaGL.h's registration functions, whose header needs
// GL's), by base name at CUDA version `version` (cuGetProcAddress, or dlsym of `name` where the
// driver has none); nullptr when the driver is not loaded or lacks it.
void* DriverSymbol(const char* name, int version);
// Throws CUDA_ERROR_NOT_SUPPORTED unless the optional entry point `fn` (from
// NODECUDA_DRIVER_OPTIONAL_FUNCS) was resolved; the message names the CUDA version it needs.
void RequireDriverFeature(const void* fn, const char* name, int version);
// "12.4" for 12040.
std::string CudaVersionString(int version);
// The NVRTC table; throws NvrtcErr NVRTC_NOT_FOUND when no libnvrtc could be opened.
const NvrtcApi& Nvrtc();
// Where NVRTC was found ("" when not loaded).
std::string NvrtcPath();

// Opens a CUDA toolkit library with dlopen: $<env_var> alone when it is set (an explicit choice:
// no silent fallback), else each soname under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (lib64/,
// lib/), then on the loader's search path. The first library that `accept` takes (it resolves
// the symbols it needs) wins; returns its path, or "" with every attempt listed in `tried`.
std::string OpenToolkitLibrary(const char* env_var, std::initializer_list<const char*> sonames,
                               const std::function<bool(void*)>& accept, std::string& tried);
// OpenToolkitLibrary's candidates, in the order it tries them (paths, then bare sonames).
std::vector<std::string> ToolkitCandidates(const char* env_var,
                                           const std::vector<const char*>& sonames);
// The first of `candidates` that dlopen opens and `accept` takes ("" if none; see above).
std::string OpenLibrary(const std::vector<std::string>& candidates,
                        const std::function<bool(void*)>& accept, std::string& tried);
// The libnvrtc candidates for a driver of `driver_version` (0: none), in the order Nvrtc() tries.
std::vector<std::string> NvrtcCandidates(int driver_version);

}  // namespace nodecuda
