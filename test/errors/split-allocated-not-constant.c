// errors/split-allocated-not-constant.c - enzyme_allocated followed by a size that is not a compile-time constant is a bad-marker error at the call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

extern int enzyme_allocated, enzyme_tape;
void *__enzyme_augmentfwd(void *, ...);

double f(double x) { return x * x; }

void g(double x, char *tape, int n) {
  // CHECK: split-allocated-not-constant.c:[[@LINE+4]]:3: error: [zymase:bad-marker] cannot differentiate 'f': enzyme_allocated must be followed by a constant size in bytes
  // CHECK-NEXT: instruction: {{.*}}call ptr (ptr, ...) @__enzyme_augmentfwd(ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-marker] cannot differentiate 'f': enzyme_allocated must be followed by a constant size in bytes
  __enzyme_augmentfwd((void *)f, x, enzyme_allocated, n, enzyme_tape, tape);
}
