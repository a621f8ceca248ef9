// Float, double and long double data in memory: float arrays, functions
// reading float and double arrays together, outputs of one precision
// computed from inputs of the other, and memcpy of float and long double
// arrays (element types from the type analysis).  Against closed forms
// (computed in double or long double) and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
#include "fd-memory.h"

#include <string.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

/* float tolerance: a few roundings in float */
#define F_TOL 1e-6

float dotf(const float *a, const float *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double mixed(const float *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + sinf(a[2]) * b[2];
}

/* the same in double, for finite differences */
double mixed_ref(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + sin(a[2]) * b[2];
}

void f2d(double *out, const float *x) {
  out[0] = x[0] * x[1];
  out[1] = (double)x[0] / x[2];
}

void d2f(float *out, const double *x) {
  out[0] = (float)(x[0] * x[1]);
  out[1] = (float)exp(x[1]);
}

float fcopy(float *dst, const float *src) {
  memcpy(dst, src, 3 * sizeof(float));
  dst[1] *= 2;
  return dst[0] * dst[1] + dst[2];
}

long double ldcopy(long double *dst, const long double *src, const double *w) {
  memcpy(dst, src, 2 * sizeof(long double));
  return dst[0] * dst[1] * w[0] + dst[1] * w[1];
}

int main(void) {
  float a[3] = {0.5f, -1.25f, 2.0f}, b[3] = {1.5f, 0.75f, -0.4f};
  float da[3] = {0}, db[3] = {0};
  __enzyme_autodiff((void *)dotf, a, da, b, db);
  for (int k = 0; k < 3; k++) {
    zy_check_close("dotf/da", da[k], b[k], F_TOL);
    zy_check_close("dotf/db", db[k], a[k], F_TOL);
  }

  {
    double bd[3] = {1.1, -0.3, 0.7}, dbd[3] = {0};
    float dfa[3] = {0};
    __enzyme_autodiff((void *)mixed, a, dfa, bd, dbd);
    zy_check_close("mixed/da[0]", dfa[0], bd[0], F_TOL);
    zy_check_close("mixed/da[1]", dfa[1], bd[1], F_TOL);
    zy_check_close("mixed/da[2]", dfa[2], cos((double)a[2]) * bd[2], F_TOL);
    zy_check_close("mixed/db[0]", dbd[0], a[0], ZY_TOL);
    zy_check_close("mixed/db[2]", dbd[2], sinf(a[2]), ZY_TOL);
    double ad[3] = {a[0], a[1], a[2]};
    zy_check_close("mixed/da[2] (finite diff)", dfa[2],
                   ZY_DIFF_AT(ad, 2, mixed_ref(ad, bd)), F_TOL);
  }

  {
    float x[3] = {0.8f, -1.5f, 2.5f}, dx[3] = {0};
    double out[2], dout[2] = {1.0, -0.5};
    __enzyme_autodiff((void *)f2d, out, dout, x, dx);
    zy_check_close("f2d primal", out[1], (double)x[0] / x[2], ZY_TOL);
    zy_check_close("f2d/dx[0]", dx[0], 1.0 * x[1] - 0.5 / x[2], F_TOL);
    zy_check_close("f2d/dx[1]", dx[1], 1.0 * x[0], F_TOL);
    zy_check_close("f2d/dx[2]", dx[2], 0.5 * x[0] / ((double)x[2] * x[2]),
                   F_TOL);
    zy_check_close("f2d/dout[0]", dout[0], 0, 0);
    zy_check_close("f2d/dout[1]", dout[1], 0, 0);
  }

  {
    double x[2] = {0.8, -1.5}, dx[2] = {0};
    float out[2], dout[2] = {1.0f, 2.0f};
    __enzyme_autodiff((void *)d2f, out, dout, x, dx);
    zy_check_close("d2f/dx[0]", dx[0], x[1], ZY_TOL);
    zy_check_close("d2f/dx[1]", dx[1], x[0] + 2.0 * exp(x[1]), F_TOL);
    zy_check_close("d2f/dout[1]", dout[1], 0, 0);
  }

  {
    float src[3] = {0.6f, -2.0f, 1.25f}, dst[3] = {0}, ds[3] = {0};
    float dd[3] = {0.5f, 0.25f, -1.0f};
    __enzyme_autodiff((void *)fcopy, dst, dd, src, ds);
    /* seed . (s0, 2 s1, s2) + 2 s0 s1 + s2 */
    zy_check_close("fcopy/ds[0]", ds[0], 0.5 + 2 * src[1], F_TOL);
    zy_check_close("fcopy/ds[1]", ds[1], 2 * 0.25 + 2 * src[0], F_TOL);
    zy_check_close("fcopy/ds[2]", ds[2], -1.0 + 1, F_TOL);
    for (int k = 0; k < 3; k++)
      zy_check_close("fcopy/dd", dd[k], 0, 0);
  }

  {
    long double src[2] = {1.5L, -0.75L}, dst[2] = {0}, ds[2] = {0};
    long double dd[2] = {0.25L, 2.0L};
    double w[2] = {0.5, 3.0}, dw[2] = {0};
    __enzyme_autodiff((void *)ldcopy, dst, dd, src, ds, w, dw);
    zy_check_closel("ldcopy/ds[0]", ds[0], 0.25L + src[1] * w[0], 1e-15L);
    zy_check_closel("ldcopy/ds[1]", ds[1], 2.0L + src[0] * w[0] + w[1],
                    1e-15L);
    zy_check_closel("ldcopy/dd[0]", dd[0], 0, 0);
    zy_check_close("ldcopy/dw[0]", dw[0], (double)(src[0] * src[1]), ZY_TOL);
    zy_check_close("ldcopy/dw[1]", dw[1], (double)src[1], ZY_TOL);
  }
  return zy_report();
}
