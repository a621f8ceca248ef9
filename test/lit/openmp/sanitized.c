// lit/openmp/sanitized.c - the functions Zymase adds carry the sanitizer
// attributes of the translation unit, so that ThreadSanitizer (Archer's
// OpenMP race checks) and AddressSanitizer instrument the gradient code
// too: the reverse of a parallel region, the gradient itself.  Before,
// they had none, and an Archer run of a gradient with a racing plain add
// to shadow memory passed.  Without -fsanitize nothing is added.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O1 -fsanitize=thread -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s --check-prefix=TSAN < %t.ll
// RUN: %clang -fopenmp -O1 -fsanitize=address -S -emit-llvm %s -o %ta.ll
// RUN: %FileCheck %s --check-prefix=ASAN < %ta.ll
// RUN: %clang -fopenmp -O1 -S -emit-llvm %s -o %tn.ll
// RUN: %FileCheck %s --check-prefix=PLAIN < %tn.ll

double __enzyme_autodiff(void *, ...);

// TSAN-LABEL: define internal void @__zymase_grad.f.
// TSAN-SAME: #[[GRAD:[0-9]+]]
// TSAN: call void @__tsan_func_entry
// TSAN-LABEL: define internal void @__zymase_rev.f.omp_outlined
// TSAN-SAME: #[[GRAD]]
// TSAN: call void @__tsan_func_entry
// TSAN: call void @__tsan_read8
// TSAN: ret void
// TSAN: attributes #[[GRAD]] = {{{.*}}sanitize_thread
// ASAN-LABEL: define internal void @__zymase_grad.f.
// ASAN-SAME: #[[GRAD:[0-9]+]]
// ASAN: attributes #[[GRAD]] = {{{.*}}sanitize_address
// PLAIN-NOT: sanitize_
// PLAIN: define internal void @__zymase_grad.f.
void f(double *x, double *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[(i + 1) % n];
}

void df(double *x, double *dx, double *y, double *dy, int n) {
  __enzyme_autodiff((void *)f, x, dx, y, dy, n);
}
