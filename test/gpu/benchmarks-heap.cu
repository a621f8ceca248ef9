// Zymase's gradients of the RSBench-shaped benchmarks make no device-heap
// allocation per launch (issue 34), counted by the GPU-on-CPU runtime
// (the programs print "heap zymase N allocs B bytes" once their checks
// pass): rsbench's pole loop recomputes exp, cos and sin; in
// rsbench-faddeeva the Faddeeva function's merge and series sum are
// recomputed by running their region again (region.c), the phase factors
// read from a copy kept per nuclide (memsnap.c), and the nuclide loop's
// caches (88 B per nuclide) and the phase loop's (4 B per l) share the
// local budget by the bytes of one nuclide (gpu_buffers.c): 38 nuclides
// in local memory, where an equal split held 22 (1180 allocations).
// NATIVE: skip, the heap counter is the emulator's
// REQUIRES: cuda
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics -DZY_COUNT_ATOMICS %S/../../benchmarks/gpu/rsbench-faddeeva.cu -o %t-rf
// RUN: %t-rf 1000 1 200 20 | %FileCheck %s
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics -DZY_COUNT_ATOMICS %S/../../benchmarks/gpu/rsbench.cu -o %t-rs
// RUN: %t-rs 1000 1 | %FileCheck %s
// CHECK: heap zymase 0 allocs 0 bytes
