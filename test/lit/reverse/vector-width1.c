// enzyme_width 1 in __enzyme_autodiff is the plain gradient: the generated
// functions are byte-identical to those made without the marker (a loop
// whose overwritten values are cached, dup pointers, a pure callee, a
// callee in split mode), at -O0 and -O2.  At width 3 the gradient takes
// each dup pointer's 3 shadows in a row and 3 return adjoints, and
// returns each active argument's 3 adjoints in a row; its callees get
// gradients of the same width (one call for all lanes).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 -S -emit-llvm %s -o %t.a0.ll -Xclang -load -Xclang %plugin -mllvm -zymase-print 2> %t.a0.g
// RUN: %clang -O0 -S -emit-llvm -DW=1 %s -o %t.b0.ll -Xclang -load -Xclang %plugin -mllvm -zymase-print 2> %t.b0.g
// RUN: diff %t.a0.g %t.b0.g
// RUN: sed -n '/^define internal.*@__zymase_/,/^}/p' %t.a0.ll > %t.a0.f
// RUN: sed -n '/^define internal.*@__zymase_/,/^}/p' %t.b0.ll > %t.b0.f
// RUN: diff %t.a0.f %t.b0.f
// RUN: grep -q 'define internal.*__zymase_grad.f' %t.a0.f
// RUN: %clang -O2 -S -emit-llvm %s -o %t.a2.ll -Xclang -load -Xclang %plugin -mllvm -zymase-print 2> %t.a2.g
// RUN: %clang -O2 -S -emit-llvm -DW=1 %s -o %t.b2.ll -Xclang -load -Xclang %plugin -mllvm -zymase-print 2> %t.b2.g
// RUN: diff %t.a2.g %t.b2.g
// RUN: grep -q 'define internal.*__zymase_grad.f' %t.a2.g
// RUN: %clang -O0 -S -emit-llvm -DW=3 %s -o /dev/null -Xclang -load -Xclang %plugin -mllvm -zymase-print 2>&1 | %FileCheck %s --check-prefix=W3
// W3-DAG: define internal { double, double, double } @__zymase_grad.f.1.d2r.w3(double {{.*}}, ptr {{.*}}, i32 {{.*}}, ptr {{.*}}, ptr {{.*}}, ptr {{.*}}, double {{.*}}, double {{.*}}, double {{.*}})
// W3-DAG: define internal { double, double, double } @__zymase_grad.pure.1r.w3(double {{.*}}, double {{.*}}, double {{.*}}, double {{.*}})
// W3-DAG: define internal { double, ptr } @__zymase_aug.touch.1.d2r.w3(double {{.*}}, ptr {{.*}}, ptr {{.*}}, ptr {{.*}}, ptr {{.*}})
// W3-DAG: define internal { double, double, double } @__zymase_rev.touch.1.d2r.w3(double {{.*}}, ptr {{.*}}, ptr {{.*}}, ptr {{.*}}, ptr {{.*}}, double {{.*}}, double {{.*}}, double {{.*}}, ptr {{.*}})

__attribute__((noinline)) double pure(double a) { return a * a + 1 / a; }
__attribute__((noinline)) double touch(double a, double *p) {
  double v = *p * a;
  *p = v;
  return v;
}

double f(double x, double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = p[i] * x + pure(x);
    p[i] = t * t;
    s += t * p[i];
  }
  return s + touch(x, p);
}

extern int enzyme_width;
#ifdef W
#if W == 3
typedef struct {
  double d[3];
} G;
#define ARGS enzyme_width, 3, x, p, d, d + 4, d + 8, n
#else
typedef double G;
#define ARGS enzyme_width, 1, x, p, d, n
#endif
#else
typedef double G;
#define ARGS x, p, d, n
#endif
G __enzyme_autodiff(void *, ...);
G df(double x, double *p, double *d, int n) {
  return __enzyme_autodiff((void *)f, ARGS);
}
