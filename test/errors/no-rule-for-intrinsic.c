// errors/no-rule-for-intrinsic.c - an active value through an LLVM intrinsic without a derivative rule (llvm.vector.reduce.fmax) is a no-rule error naming the intrinsic.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
typedef double V2 __attribute__((ext_vector_type(2)));

double f(double x, V2 w) {
  // CHECK: no-rule-for-intrinsic.c:[[@LINE+4]]:10: error: [zymase:no-rule] cannot differentiate 'f': no derivative rule for the intrinsic 'llvm.vector.reduce.fmax.v2f64'
  // CHECK-NEXT: instruction: {{.*}}call double @llvm.vector.reduce.fmax.v2f64(<2 x double>
  // CHECK: 1 error generated
  // NOG: error: [zymase:no-rule] cannot differentiate 'f': no derivative rule for the intrinsic 'llvm.vector.reduce.fmax.v2f64'
  return __builtin_reduce_max(w * x);
}

double g(double x, V2 w) {
  return __enzyme_autodiff((void *)f, x, enzyme_const, w);
}
