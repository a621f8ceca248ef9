// The GPU-on-CPU benchmarks (benchmarks/gpu) build and their kernels agree
// with their serial references at a small size, threaded and with
// ZYMASE_GPU_FAST=1 (no timing is checked).
// REQUIRES: cuda
// RUN: %gpu-clang -O2 %S/../../benchmarks/gpu/lbm.cu -o %t-lbm
// RUN: %t-lbm 40 24 3 && env ZYMASE_GPU_FAST=1 %t-lbm 40 24 3
// RUN: %gpu-clang -O2 %S/../../benchmarks/gpu/xsbench.cu -o %t-xs
// RUN: %t-xs 3000 && env ZYMASE_GPU_FAST=1 %t-xs 3000
// RUN: %gpu-clang -O2 %S/../../benchmarks/gpu/rsbench.cu -o %t-rs
// RUN: %t-rs 1000 && env ZYMASE_GPU_FAST=1 %t-rs 1000
// The workloads shaped like the published XSBench (unionized grid, all
// nuclides of a material; 1000 points per nuclide here) and RSBench
// (windows, poles, Faddeeva; 200 poles and 20 windows per nuclide here).
// RUN: %gpu-clang -O2 %S/../../benchmarks/gpu/xsbench-unionized.cu -o %t-xu
// RUN: %t-xu 9000 1 1000 && env ZYMASE_GPU_FAST=1 %t-xu 3000 1 1000
// RUN: %gpu-clang -O2 %S/../../benchmarks/gpu/rsbench-faddeeva.cu -o %t-rf
// RUN: %t-rf 1000 1 200 20 && env ZYMASE_GPU_FAST=1 %t-rf 1000 1 200 20
