// errors/split-return-markers.c - misused split-mode return markers are bad-marker errors at the call: enzyme_primal_return (refused in split mode, as by Enzyme), enzyme_active_return on a function that does not return a floating-point value, and a split-mode marker (enzyme_nofree) given to __enzyme_autodiff.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

extern int enzyme_primal_return, enzyme_active_return, enzyme_nofree;
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_autodiff(void *, ...);

double f(double x) { return x * x; }
void v(double *x) { x[0] *= x[0]; }

void *g(double x) {
  // CHECK: split-return-markers.c:[[@LINE+4]]:10: error: [zymase:bad-marker] cannot differentiate 'f': enzyme_primal_return is not available in split mode
  // CHECK-NEXT: instruction: {{.*}}call ptr (ptr, ...) @__enzyme_augmentfwd(ptr
  // CHECK-NEXT: hint: the forward pass returns the primal result already (unless enzyme_noret is given)
  // NOG: error: [zymase:bad-marker] cannot differentiate 'f': enzyme_primal_return is not available in split mode
  return __enzyme_augmentfwd((void *)f, enzyme_primal_return, x);
}

void *h(double *x, double *dx) {
  // CHECK: split-return-markers.c:[[@LINE+3]]:10: error: [zymase:bad-marker] cannot differentiate 'v': enzyme_active_return, but the function does not return a floating-point value
  // CHECK-NEXT: instruction: {{.*}}call ptr (ptr, ...) @__enzyme_augmentfwd(ptr
  // NOG: error: [zymase:bad-marker] cannot differentiate 'v': enzyme_active_return, but the function does not return a floating-point value
  return __enzyme_augmentfwd((void *)v, x, dx, enzyme_active_return);
}

double k(double x) {
  // CHECK: split-return-markers.c:[[@LINE+5]]:10: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_nofree' is not supported by __enzyme_autodiff
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr
  // CHECK-NEXT: hint: split-mode markers go to __enzyme_augmentfwd and __enzyme_reverse
  // CHECK: 3 errors generated
  // NOG: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_nofree' is not supported by __enzyme_autodiff
  return __enzyme_autodiff((void *)f, enzyme_nofree, x);
}
