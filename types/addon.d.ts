/**
 * The native addon's exports (src/*.cc): the one declared boundary between TypeScript and C++.
 * Handles are opaque, type-tagged externals; the TS classes own them.
 */
declare namespace NativeAddon {
  /** Opaque handle brands; at run time these are type-tagged N-API externals. */
  interface StreamHandle { readonly __brand: 'Stream' }
  interface EventHandle { readonly __brand: 'Event' }
  interface ModuleHandle { readonly __brand: 'Module' }
  interface FunctionHandle { readonly __brand: 'Function' }
  interface HostRegHandle { readonly __brand: 'HostRegistration' }
  interface ContextHandle { readonly __brand: 'Context' }
  interface ArrayHandle { readonly __brand: 'Array' }
  interface TexObjectHandle { readonly __brand: 'TextureObject' }
  interface SurfObjectHandle { readonly __brand: 'SurfaceObject' }
  interface GlContextHandle { readonly __brand: 'GLContext' }
  interface GraphicsResourceHandle { readonly __brand: 'GraphicsResource' }
  interface NcclCommHandle { readonly __brand: 'NcclComm' }

  interface NcclStatus {
    ok: boolean;
    /** Where libnccl was opened ("" when not). */
    path: string;
    /** ncclGetVersion: major * 10000 + minor * 100 + patch (0 when not loaded). */
    version: number;
    /** What to install when not ok. */
    message: string;
  }
  interface CufftPlanHandle { readonly __brand: 'CufftPlan' }

  interface GlStatus {
    ok: boolean;
    code: string;
    message: string;
    path: string;
    clientExtensions: string;
  }
  type HostBuffer = ArrayBuffer | ArrayBufferView | SharedArrayBuffer;
  /**
   * `pinned` of a copy: the page-locked registration covering the host range (null: pageable,
   * staged). Synchronous copies only test it for truth; asynchronous ones hold it until settled
   * and stage the copy when it does not cover the range.
   */
  type Pinned = HostRegHandle | boolean | null;

  interface DriverStatus {
    ok: boolean;
    found: boolean;
    status: number;
    code: string;
    message: string;
    /** The driver library asked for (NODECUDA_LIBCUDA or libcuda.so.1). */
    path: string;
    /** dlerror() when the library did not open ('' otherwise). */
    dlopenError: string;
    /** cuDriverGetVersion (e.g. 12000), 0 when unknown. */
    version: number;
    /** Entry points were resolved with the driver's cuGetProcAddress (else dlsym). */
    procAddress: boolean;
    /** The oldest driver CUDA version accepted (12000). */
    minVersion: number;
    /** Optional entry points (newer than CUDA 12.0) this driver does not offer. */
    missingOptional: string[];
  }

  interface CompileResult {
    image: Uint8Array;
    log: string;
    loweredNames: string[];
  }

  /** One end of memcpy3D: kind 0 host, 1 device, 2 array; x in bytes. */
  interface CopySide {
    kind: 0 | 1 | 2;
    host?: ArrayBuffer | ArrayBufferView;
    byteOffset?: number;
    byteLength?: number;
    ptr?: bigint;
    array?: ArrayHandle;
    x: number;
    y: number;
    z: number;
    pitch: number;
    height: number;
  }

  /** What a texture object reads: kind 0 array, 1 linear memory, 2 pitched 2-D memory. */
  interface TextureResourceDesc {
    kind: 0 | 1 | 2;
    array?: ArrayHandle;
    ptr?: bigint;
    format?: number;
    channels?: number;
    bytes?: number;
    width?: number;
    height?: number;
    pitch?: number;
  }

  /** CUDA_TEXTURE_DESC's fields. */
  interface TextureDesc {
    addressMode: number[];
    filterMode: number;
    flags: number;
    maxAnisotropy: number;
    borderColor: number[];
  }

  interface Addon {
    readonly napiVersion: number;
    /** The ArrayBuffer was transferred (detached); false for anything else. */
    isDetached(buffer: unknown): boolean;
    init(cudaError: Function, nvrtcError: Function, typeError: Function, rangeError: Function, isWorker?: boolean): void;

    // device.cc
    driverStatus(): DriverStatus;
    driverVersion(): number;
    nvrtcVersion(): [number, number, string];
    /** The libnvrtc paths and sonames the addon tries, in its order (none is opened). */
    nvrtcCandidates(): string[];
    deviceCount(): number;
    deviceName(ordinal: number): string;
    deviceTotalMem(ordinal: number): number;
    deviceAttribute(ordinal: number, attribute: number): number;
    devicePciBusId(ordinal: number): string;
    deviceReset(ordinal: number): void;
    useDevice(ordinal: number): void;
    currentDevice(): number;
    ctxCreate(ordinal: number, flags: number): ContextHandle;
    ctxPush(ctx: ContextHandle): void;
    ctxPop(): ContextHandle | null;
    ctxCurrent(): ContextHandle;
    ctxPrimary(ordinal: number): ContextHandle;
    /** [ordinal, primary, generation, id] of the given or the current context. */
    ctxInfo(ctx?: ContextHandle): [number, boolean, number, number];
    ctxSynchronize(ctx?: ContextHandle): void;
    ctxSynchronizeAsync(): Promise<void>;
    memGetInfo(): [number, number];
    /** cuDeviceCanAccessPeer (false for a device and itself, as CUDA answers). */
    deviceCanAccessPeer(ordinal: number, peerOrdinal: number): boolean;
    /** Lets `ctx` (default: current) access `peer`'s memory, pool allocations included; idempotent. */
    ctxEnablePeerAccess(peer: ContextHandle, ctx?: ContextHandle): void;

    // memory.cc
    /** Allocates for `owner` (a DeviceAllocation), whose collection frees the memory. */
    memAlloc(bytes: number, stream: StreamHandle | null, owner: object): bigint;
    memFree(ptr: bigint, stream: StreamHandle | null): boolean;
    /**
     * Work using the allocation at `ptr` (its base address) was queued on `stream` (null: the
     * legacy stream): its free waits for that work. false when `ptr` is not a live allocation.
     */
    memRecordStream(ptr: bigint, stream: StreamHandle | null): boolean;
    /** Frees memory of allocations whose owners were garbage collected; returns bytes freed. */
    memCollect(): number;
    memLive(): [number, number];
    poolInfo(): [number, number];
    poolTrim(): void;
    memcpyHtod(dst: bigint, src: HostBuffer, byteOffset: number, byteLength: number, pinned: Pinned): void;
    memcpyDtoh(dst: HostBuffer, byteOffset: number, byteLength: number, src: bigint, pinned: Pinned): void;
    memcpyDtod(dst: bigint, src: bigint, bytes: number, stream: StreamHandle | null, async: false): void;
    memcpyDtod(dst: bigint, src: bigint, bytes: number, stream: StreamHandle | null, async: true): Promise<void>;
    /**
     * Copies between the primary contexts of two devices (cuMemcpyPeerAsync) on `stream` (of the
     * destination device; null: its legacy stream), ordered after the work queued on `srcStream`
     * (of the source device; null: its legacy stream), which then waits for the copy.
     */
    memcpyPeer(dst: bigint, dstOrdinal: number, src: bigint, srcOrdinal: number, bytes: number,
      stream: StreamHandle | null, srcStream: StreamHandle | null, async: false): void;
    memcpyPeer(dst: bigint, dstOrdinal: number, src: bigint, srcOrdinal: number, bytes: number,
      stream: StreamHandle | null, srcStream: StreamHandle | null, async: true): Promise<void>;
    memcpyHtodAsync(dst: bigint, src: HostBuffer, byteOffset: number, byteLength: number, pinned: Pinned,
      stream: StreamHandle | null): Promise<void>;
    memcpyDtohAsync(dst: HostBuffer, byteOffset: number, byteLength: number, src: bigint, pinned: Pinned,
      stream: StreamHandle | null): Promise<void>;
    memset(dst: bigint, value: number, count: number, width: 1 | 2 | 4, stream: StreamHandle | null,
      async: false): void;
    memset(dst: bigint, value: number, count: number, width: 1 | 2 | 4, stream: StreamHandle | null,
      async: true): Promise<void>;

    // host_memory.cc
    hostRegister(buffer: HostBuffer, byteOffset: number, byteLength: number): HostRegHandle;
    hostUnregister(reg: HostRegHandle): boolean;
    hostPageOffset(buffer: ArrayBuffer): number;

    // stream.cc
    streamCreate(flags: number): StreamHandle;
    streamSynchronize(s: StreamHandle): void;
    streamSynchronizeAsync(s: StreamHandle): Promise<void>;
    streamQuery(s: StreamHandle): boolean;
    streamWaitEvent(s: StreamHandle | null, e: EventHandle): void;
    streamDestroy(s: StreamHandle): void;
    eventCreate(flags: number): EventHandle;
    eventDestroy(e: EventHandle): void;
    eventRecord(e: EventHandle, s: StreamHandle | null): void;
    eventSynchronize(e: EventHandle): void;
    eventSynchronizeAsync(e: EventHandle): Promise<void>;
    eventQuery(e: EventHandle): boolean;
    eventElapsed(start: EventHandle, end: EventHandle): number;

    // program.cc
    compile(source: string, name: string, options: string[], nameExpressions: string[], cubin: boolean): CompileResult;
    compileAsync(source: string, name: string, options: string[], nameExpressions: string[],
      cubin: boolean): Promise<CompileResult>;
    supportedArchs(): number[];

    // module.cc
    moduleLoad(image: HostBuffer, byteOffset: number, byteLength: number): ModuleHandle;
    moduleFunction(mod: ModuleHandle, name: string): FunctionHandle;
    moduleGlobal(mod: ModuleHandle, name: string): [bigint, number];
    /** [offset, size, ...] per parameter (cuFuncGetParamInfo, CUDA 12.4); null without it unless `required`. */
    funcParamInfo(fn: FunctionHandle, required: boolean): number[] | null;
    funcAttribute(fn: FunctionHandle, attribute: number): number;
    funcSetAttribute(fn: FunctionHandle, attribute: number, value: number): void;
    occupancyMaxActiveBlocks(fn: FunctionHandle, blockSize: number, sharedBytes: number): number;
    occupancyMaxPotentialBlockSize(fn: FunctionHandle, sharedBytes: number, blockSizeLimit: number): [number, number];

    // launch.cc
    /**
     * `queue`: the kernel is one of nodecuda's own (a launch configuration known to be valid); in a
     * run of such launches a launcher thread submits it (launch_queue.cc).
     */
    launch(fn: FunctionHandle, stream: StreamHandle | null, config: Uint32Array, params: Uint8Array,
      paramBytes: number, queue?: boolean): void;
    /** [launches queued, of which the launcher thread submitted] since the process started. */
    launchQueueStats(): [number, number];

    // curand.cc
    /**
     * cuRAND's Sobol32 tables, copied: which 0 = direction vectors, 1 = scrambled direction
     * vectors (20000 × 32 uint32), 2 = scramble constants (20000 uint32) → [table, cuRAND version,
     * library path]; or the reason (a string) when libcurand cannot be used.
     */
    curandTable(which: 0 | 1 | 2): [ArrayBuffer, number, string] | string;

    // cublas.cc
    /** Hands over the CublasError class (lib/base/errors.ts) cuBLAS failures are made from. */
    cublasInit(cublasError: Function): void;
    /** Opens libcublas (once per process; no GPU needed): where, which version, or why not. */
    cublasStatus(): { found: boolean; path: string; version: string | null; message: string };
    /**
     * C = op(A)·op(B), column-major, strided batched (alpha 1, beta 0). `params`: transa, transb,
     * m, n, k, lda, strideA, ldb, strideB, ldc, strideC, batch, cudaDataType, cublasComputeType.
     */
    cublasGemm(stream: StreamHandle | null, params: Float64Array, a: bigint, b: bigint, c: bigint): void;
    cublasDot(stream: StreamHandle | null, dataType: number, n: number, x: bigint, incx: number, y: bigint, incy: number,
      result: bigint): void;
    // cufft.cc (CufftError: CUFFT_NOT_FOUND when libcufft cannot be opened, else the cufftResult)
    /** [cufftGetVersion(), library path]. */
    cufftVersion(): [number, string];
    /** The class cuFFT failures are made from in this environment (lib/fft passes CufftError). */
    cufftSetErrorClass(cls: new (message: string, info: { code: string; status: number; call: string }) => Error): void;
    /**
     * cufftMakePlanMany64 in the calling thread's context, auto-allocation off → [plan, work area
     * bytes]. type: cufftType (0x29 C2C, 0x2a R2C, 0x2c C2R, 0x69 Z2Z, 0x6a D2Z, 0x6c Z2D).
     */
    cufftPlan(type: number, n: number[], inembed: number[], istride: number, idist: number,
      onembed: number[], ostride: number, odist: number, batch: number): [CufftPlanHandle, number];
    /** Binds `stream` and the work area (0n: none), then executes (in place when input === output). */
    cufftExec(plan: CufftPlanHandle, stream: StreamHandle | null, input: bigint, output: bigint, work: bigint,
      inverse: boolean): void;
    /** Frees the plan now (idempotent). */
    cufftDestroy(plan: CufftPlanHandle): void;

    // array.cc
    arrayCreate(format: number, channels: number, width: number, height: number, depth: number,
      flags: number): ArrayHandle;
    /** [format, channels, width, height, depth, flags] */
    arrayDescriptor(a: ArrayHandle): [number, number, number, number, number, number];
    /** Frees an owned array now (idempotent); a mapped one is only forgotten. */
    arrayDestroy(a: ArrayHandle): void;
    memcpy3D(src: CopySide, dst: CopySide, widthInBytes: number, height: number, depth: number,
      stream: StreamHandle | null, async: false): void;
    memcpy3D(src: CopySide, dst: CopySide, widthInBytes: number, height: number, depth: number,
      stream: StreamHandle | null, async: true): Promise<void>;
    texObjectCreate(resource: TextureResourceDesc, desc: TextureDesc): [TexObjectHandle, bigint];
    texObjectDestroy(t: TexObjectHandle): void;
    surfObjectCreate(a: ArrayHandle): [SurfObjectHandle, bigint];
    surfObjectDestroy(s: SurfObjectHandle): void;

    // gl.cc (EGL/GL; GL calls need a current context and throw GlError GL_NO_CONTEXT without one)
    glStatus(): GlStatus;
    glSetErrorClass(cls: Function): void;
    /** cuda: the CUDA ordinal (EGL_NV_device_cuda) or -1. */
    eglDevices(): Array<{ cuda: number; extensions: string; drm: string }>;
    /** eglDevice -1: Mesa's surfaceless platform. → [handle, platform description] */
    glContextCreate(eglDevice: number, major: number, minor: number, core: boolean): [GlContextHandle, string];
    glMakeCurrent(ctx: GlContextHandle): void;
    glRelease(ctx: GlContextHandle): boolean;
    glIsCurrent(ctx: GlContextHandle | null): boolean;
    glContextDestroy(ctx: GlContextHandle): void;
    /** [GL_VENDOR, GL_RENDERER, GL_VERSION] of the current context. */
    glStrings(): [string, string, string];
    glBufferCreate(target: number, bytes: number, data: HostBuffer | null, byteOffset: number, byteLength: number,
      usage: number): number;
    glBufferAccess(write: boolean, target: number, buffer: number, offset: number, host: HostBuffer,
      byteOffset: number, byteLength: number): void;
    glBufferSize(target: number, buffer: number): number;
    glTextureCreate(width: number, height: number, internalFormat: number, format: number, type: number,
      data: HostBuffer | null, byteOffset: number, byteLength: number, linear: boolean): number;
    glTextureWrite(texture: number, x: number, y: number, width: number, height: number, format: number, type: number,
      data: HostBuffer | null, byteOffset: number, byteLength: number, unpackBuffer: number, unpackOffset: number): void;
    glTextureRead(texture: number, format: number, type: number, host: HostBuffer, byteOffset: number,
      byteLength: number): void;
    glTextureSize(texture: number): [number, number];
    glRenderbufferCreate(internalFormat: number, width: number, height: number): number;
    glFramebufferCreate(attachment: number, renderbuffer: boolean): number;
    glReadPixels(fbo: number, x: number, y: number, width: number, height: number, format: number, type: number,
      host: HostBuffer, byteOffset: number, byteLength: number): void;
    glProgramCreate(vertexSource: string, fragmentSource: string): number;
    glDrawFullscreen(program: number, fbo: number, texture: number, width: number, height: number,
      uniforms: Record<string, number>): void;
    glClearFramebuffer(fbo: number, r: number, g: number, b: number, a: number): void;
    /** kind: 0 buffer, 1 texture, 2 framebuffer, 3 renderbuffer, 4 program */
    glDelete(kind: 0 | 1 | 2 | 3 | 4, name: number): void;
    glFinish(): void;

    // gl_interop.cc
    glRegisterBuffer(buffer: number, flags: number): GraphicsResourceHandle;
    glRegisterImage(image: number, target: number, flags: number): GraphicsResourceHandle;
    graphicsMap(resources: GraphicsResourceHandle[], stream: StreamHandle | null): void;
    graphicsUnmap(resources: GraphicsResourceHandle[], stream: StreamHandle | null): void;
    graphicsMappedPointer(r: GraphicsResourceHandle): [bigint, number];
    /** The mapped image's CUDA array (not owned; unusable after unmap). */
    graphicsMappedArray(r: GraphicsResourceHandle, index: number, level: number): ArrayHandle;
    graphicsSetMapFlags(r: GraphicsResourceHandle, flags: number): void;
    /** Unmaps (if mapped) and unregisters; idempotent. */
    graphicsUnregister(r: GraphicsResourceHandle): void;

    // nccl.cc (libnccl.so.2 via dlopen; failures throw the class given to ncclSetErrorClass).
    // Calls that may queue work answer 0 (done) or 7 (ncclInProgress: poll ncclCommState).
    ncclSetErrorClass(cls: Function): void;
    /** Opens NCCL once per process; `wheelPaths` (tried after the toolkit and loader path) count on the first call. */
    ncclStatus(wheelPaths: string[]): NcclStatus;
    /** 128 bytes (NCCL_UNIQUE_ID_BYTES). */
    ncclGetUniqueId(): ArrayBuffer;
    /** cgaClusterSize -1: NCCL's default. */
    ncclCommInitRank(nranks: number, id: Uint8Array, rank: number, device: number, blocking: boolean,
      cgaClusterSize: number): NcclCommHandle;
    /** ncclCommGetAsyncError: 0 idle, 7 in progress, else the failure's ncclResult_t. */
    ncclCommState(comm: NcclCommHandle): number;
    /** Starts ncclCommSplit(comm, 0, rank, {blocking: 1}) of an idle communicator (NCCL's thread; poll ncclCommState). */
    ncclCommSplitWork(comm: NcclCommHandle, rank: number): number;
    /** ncclCommState once it is not 7 (sleeping in between), or 7 when timeoutMs ran out. Holds the thread. */
    ncclCommWait(comm: NcclCommHandle, timeoutMs: number): number;
    /** The NcclError for a failed status (null for 0 and 7), not thrown. */
    ncclErrorOf(comm: NcclCommHandle | null, status: number, call: string): Error | null;
    /** [nranks, CUDA device, rank] */
    ncclCommInfo(comm: NcclCommHandle): [number, number, number];
    /** kind: 0 allReduce, 1 reduce, 2 broadcast, 3 allGather, 4 reduceScatter, 5 send, 6 recv. */
    ncclCollective(comm: NcclCommHandle, kind: number, send: bigint, recv: bigint, count: number, datatype: number,
      op: number, rootOrPeer: number, stream: StreamHandle | null): number;
    ncclGroup(start: boolean): number;
    ncclCommFinalize(comm: NcclCommHandle): number;
    /** ncclCommAbort (abort) or ncclCommDestroy; idempotent. */
    ncclCommRelease(comm: NcclCommHandle, abort: boolean): void;
    ncclStreamDoneAsync(comm: NcclCommHandle, stream: StreamHandle | null): Promise<void>;
  }
}
