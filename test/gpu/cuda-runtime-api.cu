// The CUDA runtime calls Enzyme's GPU programs make, in the GPU-on-CPU
// mode: cudaGetDeviceProperties and cudaDeviceGetAttribute (a device of
// sm_70 limits, one multiprocessor per core), cudaGetDeviceCount,
// cudaGetDevice/SetDevice, cudaMemGetInfo, cudaThreadSynchronize,
// cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor,
// events (create, record, synchronize, query, elapsed time, disabled
// timing, destroy, a stream waiting on one), and cudaDeviceSetLimit/
// GetLimit with the device heap honouring cudaLimitMallocHeapSize (device
// malloc returns NULL past it, as on a GPU).  A host C file in the same
// command is compiled as host code, with the plugin.  -O0 and -O2.
// NATIVE: skip, the emulated device's numbers (sm_70 limits, a multiprocessor per core, its heap) and a host C file in a CUDA command
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s %S/Inputs/host-part.c -o %t0 && %t0
// RUN: %gpu-clang -O2 %s %S/Inputs/host-part.c -o %t2 && %t2
// RUN: %gpu-clang -O2 -c %S/Inputs/host-part.c -o %t-host.o && %gpu-clang -O2 %s %t-host.o -o %t3 && %t3
#include "gpu-check.h"

#include <cstring>

extern "C" double host_part_gradient(double x, double c);

/* Each thread allocates `bytes` on the device heap, keeps the block (so
 * that the optimizer cannot drop the allocation) and says whether it got
 * them; release frees them. */
__device__ char *blocks_kept[4];
__global__ void alloc(size_t bytes, int *ok) {
  char *p = (char *)malloc(bytes);
  ok[threadIdx.x] = p != NULL;
  if (p)
    memset(p, 1, bytes);
  blocks_kept[threadIdx.x] = p;
}
__global__ void release(void) { free(blocks_kept[threadIdx.x]); }

__global__ void scale(double *x, int n) {
  __shared__ double tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  if (i < n)
    x[i] = 2 * tile[63 - threadIdx.x];
}

int main() {
  int count = 0, dev = -1;
  CK(cudaGetDeviceCount(&count));
  CK(cudaGetDevice(&dev));
  check_value("cudaGetDeviceCount", count, 1);
  check_value("cudaGetDevice", dev, 0);
  CK(cudaSetDevice(0));
  check_value("cudaSetDevice(1) refused",
              cudaSetDevice(1) == cudaErrorInvalidDevice, 1);
  cudaGetLastError();

  cudaDeviceProp p;
  memset(&p, 0x7f, sizeof p);
  CK(cudaGetDeviceProperties(&p, 0));
  check_value("prop warpSize", p.warpSize, 32);
  check_value("prop maxThreadsPerBlock", p.maxThreadsPerBlock, 1024);
  check_value("prop maxThreadsDim[2]", p.maxThreadsDim[2], 64);
  check_value("prop maxGridSize[1]", p.maxGridSize[1], 65535);
  check_value("prop sharedMemPerBlock", (double)p.sharedMemPerBlock, 49152);
  check_value("prop compute capability", p.major * 10 + p.minor, 70);
  check_value("prop multiProcessorCount >= 1", p.multiProcessorCount >= 1, 1);
  check_value("prop totalGlobalMem > 0", p.totalGlobalMem > 0, 1);
  check_value("prop name", strncmp(p.name, "Zymase", 6), 0);
  int v = -1;
  struct {
    cudaDeviceAttr a;
    int want;
  } attrs[] = {{cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock},
               {cudaDevAttrWarpSize, p.warpSize},
               {cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]},
               {cudaDevAttrMaxGridDimX, p.maxGridSize[0]},
               {cudaDevAttrMultiProcessorCount, p.multiProcessorCount},
               {cudaDevAttrComputeCapabilityMajor, p.major},
               {cudaDevAttrMaxSharedMemoryPerBlock, (int)p.sharedMemPerBlock},
               {cudaDevAttrMaxSharedMemoryPerBlockOptin,
                (int)p.sharedMemPerBlockOptin},
               {cudaDevAttrCooperativeLaunch, 0}};
  for (auto &a : attrs) {
    CK(cudaDeviceGetAttribute(&v, a.a, 0));
    check_value("cudaDeviceGetAttribute as the properties", v, a.want);
  }

  size_t free_b = 0, total = 0;
  CK(cudaMemGetInfo(&free_b, &total));
  check_value("cudaMemGetInfo total", total == p.totalGlobalMem, 1);
  check_value("cudaMemGetInfo free <= total", free_b > 0 && free_b <= total, 1);

  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, scale));
  check_value("cudaFuncGetAttributes static shared", (double)fa.sharedSizeBytes,
              64 * sizeof(double));
  check_value("cudaFuncGetAttributes max threads", fa.maxThreadsPerBlock, 1024);
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 0));
  check_value("occupancy of 256-thread blocks", blocks, 8);

  /* Events around a kernel. */
  const int n = 4096;
  double h[n], want[n];
  for (int i = 0; i < n; i++) /* each block of 64 reversed, doubled */
    h[i] = 0.5 * i, want[i / 64 * 64 + 63 - i % 64] = i;
  double *d = to_device(h, n);
  cudaEvent_t start, stop, untimed;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  CK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  CK(cudaEventRecord(start, s));
  scale<<<n / 64, 64, 0, s>>>(d, n);
  CK(cudaEventRecord(stop, s));
  CK(cudaEventRecord(untimed, s));
  CK(cudaStreamWaitEvent(s, stop, 0));
  CK(cudaEventSynchronize(stop));
  check_value("cudaEventQuery", cudaEventQuery(stop) == cudaSuccess, 1);
  float ms = -1;
  CK(cudaEventElapsedTime(&ms, start, stop));
  check_value("cudaEventElapsedTime >= 0", ms >= 0, 1);
  check_value("elapsed time of an untimed event refused",
              cudaEventElapsedTime(&ms, start, untimed) ==
                  cudaErrorInvalidResourceHandle,
              1);
  cudaGetLastError();
  CK(cudaThreadSynchronize());
  to_host(h, d, n);
  check_array("the timed kernel ran", h, want, n);
  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(stop));
  CK(cudaEventDestroy(untimed));
  CK(cudaStreamDestroy(s));

  /* The device heap: 8 MiB by default, where 4 threads get 1 MiB each but
   * only 2 get 3 MiB; after raising the limit all 4 do. */
  size_t lim = 0;
  CK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
  check_value("default cudaLimitMallocHeapSize", (double)lim, 8 << 20);
  int ok[4], *d_ok;
  CK(cudaMalloc(&d_ok, sizeof ok));
  alloc<<<1, 4>>>(1 << 20, d_ok);
  to_host(ok, d_ok, 4);
  check_value("device mallocs within the heap", ok[0] + ok[1] + ok[2] + ok[3],
              4);
  release<<<1, 4>>>();
  alloc<<<1, 4>>>(3 << 20, d_ok);
  to_host(ok, d_ok, 4);
  check_value("device mallocs past the heap are NULL",
              ok[0] + ok[1] + ok[2] + ok[3], 2);
  release<<<1, 4>>>();
  CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20));
  CK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
  check_value("raised cudaLimitMallocHeapSize", (double)lim, 64 << 20);
  alloc<<<1, 4>>>(3 << 20, d_ok);
  to_host(ok, d_ok, 4);
  check_value("device mallocs within the raised heap",
              ok[0] + ok[1] + ok[2] + ok[3], 4);
  release<<<1, 4>>>();

  /* The host C file's gradient: 2 c x + cos(x). */
  check_value("host .c file's __enzyme_autodiff", host_part_gradient(0.3, 1.5),
              2 * 1.5 * 0.3 + cos(0.3), 1e-15);
  return gpu_report();
}
