// errors/abi-unknown-names.c - functions and markers of Enzyme's
// interface that Zymase does not implement are located errors, never
// skipped: a call to __enzyme_todense, a marker passed to another
// function, an annotation Zymase does not know.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
void *__enzyme_todense(void *, ...);
extern int enzyme_buffer;
void take(int);

// CHECK-DAG: abi-unknown-names.c:[[@LINE+2]]:1: error: [zymase:bad-registration] cannot differentiate 'f': the annotation 'enzyme_sparse_accumulate' on 'f' is not implemented by Zymase
__attribute__((annotate("enzyme_sparse_accumulate")))
double f(double x) { return x * x; }

double g(double x) { return __enzyme_autodiff((void *)f, x); }

void *dense(void *p) {
  // CHECK-DAG: abi-unknown-names.c:[[@LINE+2]]:10: error: [zymase:bad-call] cannot differentiate 'dense': '__enzyme_todense' is part of Enzyme's interface that Zymase does not implement
  // CHECK-DAG: hint: see README.md, "Coming from Enzyme", for what Zymase implements
  return __enzyme_todense(p);
}

void width(void) {
  // CHECK-DAG: abi-unknown-names.c:[[@LINE+1]]:3: error: [zymase:bad-marker] cannot differentiate 'width': 'enzyme_buffer' is part of Enzyme's interface that Zymase does not implement
  take(enzyme_buffer);
}
