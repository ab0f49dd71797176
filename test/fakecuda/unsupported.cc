// Driver entry points the double does not model (CUDA arrays, texture/surface objects, graphics
// interop): exported so the addon's table resolves, each answering CUDA_ERROR_NOT_SUPPORTED.
// Tests of those features run on the GPU machine (test/45, test/46).
#include <cuda.h>

#define FAKE_API extern "C" __attribute__((visibility("default")))
#define FAKE_UNSUPPORTED(name, ...) \
  FAKE_API CUresult name(__VA_ARGS__) { return CUDA_ERROR_NOT_SUPPORTED; }

FAKE_UNSUPPORTED(cuArray3DCreate, CUarray*, const CUDA_ARRAY3D_DESCRIPTOR*)
FAKE_UNSUPPORTED(cuArray3DGetDescriptor, CUDA_ARRAY3D_DESCRIPTOR*, CUarray)
FAKE_UNSUPPORTED(cuArrayDestroy, CUarray)
FAKE_UNSUPPORTED(cuMemcpy3D, const CUDA_MEMCPY3D*)
FAKE_UNSUPPORTED(cuMemcpy3DAsync, const CUDA_MEMCPY3D*, CUstream)
FAKE_UNSUPPORTED(cuTexObjectCreate, CUtexObject*, const CUDA_RESOURCE_DESC*,
                 const CUDA_TEXTURE_DESC*, const CUDA_RESOURCE_VIEW_DESC*)
FAKE_UNSUPPORTED(cuTexObjectDestroy, CUtexObject)
FAKE_UNSUPPORTED(cuSurfObjectCreate, CUsurfObject*, const CUDA_RESOURCE_DESC*)
FAKE_UNSUPPORTED(cuSurfObjectDestroy, CUsurfObject)
FAKE_UNSUPPORTED(cuGraphicsMapResources, unsigned int, CUgraphicsResource*, CUstream)
FAKE_UNSUPPORTED(cuGraphicsUnmapResources, unsigned int, CUgraphicsResource*, CUstream)
FAKE_UNSUPPORTED(cuGraphicsResourceGetMappedPointer, CUdeviceptr*, size_t*, CUgraphicsResource)
FAKE_UNSUPPORTED(cuGraphicsSubResourceGetMappedArray, CUarray*, CUgraphicsResource, unsigned int,
                 unsigned int)
FAKE_UNSUPPORTED(cuGraphicsUnregisterResource, CUgraphicsResource)
FAKE_UNSUPPORTED(cuGraphicsResourceSetMapFlags, CUgraphicsResource, unsigned int)
