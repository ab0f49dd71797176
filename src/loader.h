// Function tables for libcuda and libnvrtc, opened with dlopen on first use (never linked), so
// the addon loads on machines without a driver or a toolkit. Names are resolved after cuda.h's
// version macros (cuMemAlloc -> cuMemAlloc_v2), so each entry has the prototype cuda.h declares.
#pragma once

#include <cuda.h>
#include <nvrtc.h>

#include <functional>
#include <initializer_list>
#include <string>

namespace nodecuda {

// clang-format off
#define NODECUDA_DRIVER_FUNCS(X) \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) \
  X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceTotalMem) X(cuDeviceGetAttribute) \
  X(cuDeviceGetPCIBusId) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) \
  X(cuDevicePrimaryCtxReset) X(cuCtxCreate) X(cuCtxDestroy) X(cuCtxSetCurrent) \
  X(cuCtxGetCurrent) X(cuCtxSynchronize) X(cuMemGetInfo) X(cuMemAlloc) X(cuMemFree) \
  X(cuMemAllocFromPoolAsync) X(cuMemFreeAsync) X(cuDeviceGetDefaultMemPool) \
  X(cuMemPoolSetAttribute) X(cuMemPoolGetAttribute) X(cuMemPoolTrimTo) X(cuMemcpyHtoD) \
  X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) \
  X(cuMemcpyDtoDAsync) X(cuMemsetD8) X(cuMemsetD16) X(cuMemsetD32) X(cuMemsetD8Async) \
  X(cuMemsetD16Async) X(cuMemsetD32Async) X(cuMemHostRegister) X(cuMemHostUnregister) \
  X(cuMemAllocHost) X(cuMemFreeHost) X(cuStreamCreate) X(cuStreamDestroy) \
  X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWaitEvent) X(cuEventCreate) \
  X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize) X(cuEventQuery) \
  X(cuEventElapsedTime) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) \
  X(cuModuleGetGlobal) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuOccupancyMaxPotentialBlockSize) \
  X(cuArray3DCreate) X(cuArray3DGetDescriptor) X(cuArrayDestroy) X(cuMemcpy3D) \
  X(cuMemcpy3DAsync) X(cuTexObjectCreate) X(cuTexObjectDestroy) X(cuSurfObjectCreate) \
  X(cuSurfObjectDestroy) X(cuGraphicsMapResources) X(cuGraphicsUnmapResources) \
  X(cuGraphicsResourceGetMappedPointer) X(cuGraphicsSubResourceGetMappedArray) \
  X(cuGraphicsUnregisterResource) X(cuGraphicsResourceSetMapFlags) \
  X(cuDeviceCanAccessPeer) X(cuCtxEnablePeerAccess) X(cuMemPoolSetAccess) X(cuMemcpyPeerAsync)

#define NODECUDA_NVRTC_FUNCS(X) \
  X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(nvrtcDestroyProgram) \
  X(nvrtcCompileProgram) X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcGetCUBINSize) \
  X(nvrtcGetCUBIN) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcAddNameExpression) \
  X(nvrtcGetLoweredName) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)
// clang-format on

#define NODECUDA_DECLARE_FN(name) decltype(&::name) name = nullptr;

struct DriverApi {
  NODECUDA_DRIVER_FUNCS(NODECUDA_DECLARE_FN)
};
struct NvrtcApi {
  NODECUDA_NVRTC_FUNCS(NODECUDA_DECLARE_FN)
};

// Outcome of opening libcuda and calling cuInit(0), decided once per process.
struct DriverState {
  CUresult status = CUDA_ERROR_NOT_INITIALIZED;  // CUDA_SUCCESS when usable
  bool found = false;                            // the library opened and its symbols resolved
  std::string message;                           // what to do when it is not usable
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
// A symbol of the opened driver library outside the table (cudaGL.h's registration functions,
// whose header needs GL's); nullptr when the driver is not loaded or lacks it.
void* DriverSymbol(const char* name);
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

}  // namespace nodecuda
