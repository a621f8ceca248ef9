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
