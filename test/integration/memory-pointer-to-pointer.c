// Pointers to pointers: a matrix as an array of row pointers whose shadow is
// an array of shadow row pointers built by the caller, pointers stored into
// memory (their shadows are stored into the shadow), row pointers swapped
// in place, and three levels of indirection.  Against closed forms and
// finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
#include "fd-memory.h"

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

/* det of a 3x3 matrix given as row pointers */
double det3(double *const *A) {
  return A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
         A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
         A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
}

/* |A x|^2 for a 2x3 matrix of row pointers */
double norm_ax(double *const *A, const double *x) {
  double y0 = A[0][0] * x[0] + A[0][1] * x[1] + A[0][2] * x[2];
  double y1 = A[1][0] * x[0] + A[1][1] * x[1] + A[1][2] * x[2];
  return y0 * y0 + y1 * y1;
}

/* stores p into *slot, then reads through the stored pointer */
double store_then_read(double **slot, double *p) {
  slot[0] = p;
  slot[1] = p + 1;
  return slot[0][0] * slot[1][0] * slot[1][1];
}

/* swaps two row pointers, then reads through the swapped rows */
double swap_rows(double **A) {
  double *t = A[0];
  A[0] = A[1];
  A[1] = t;
  return A[0][0] - 3 * A[1][0] * A[0][1];
}

/* three levels: ***p */
double three(double ***p) { return p[0][0][0] * p[0][1][1] + p[1][0][0]; }

int main(void) {
  double r0[3] = {2.0, -1.0, 0.5}, r1[3] = {0.3, 1.5, -0.7},
         r2[3] = {1.1, 0.2, 0.9};
  double d0[3] = {0}, d1[3] = {0}, d2[3] = {0};
  double *A[3] = {r0, r1, r2}, *dA[3] = {d0, d1, d2};
  __enzyme_autodiff((void *)det3, A, dA);
  /* d det / d A[i][j] = cofactor C[i][j] */
  double want0[3] = {r1[1] * r2[2] - r1[2] * r2[1],
                     -(r1[0] * r2[2] - r1[2] * r2[0]),
                     r1[0] * r2[1] - r1[1] * r2[0]};
  double want2[3] = {r0[1] * r1[2] - r0[2] * r1[1],
                     -(r0[0] * r1[2] - r0[2] * r1[0]),
                     r0[0] * r1[1] - r0[1] * r1[0]};
  zy_check_array("det3/dA[0]", d0, want0, 3, ZY_TOL);
  zy_check_array("det3/dA[2]", d2, want2, 3, ZY_TOL);
  double fd[3];
  for (int k = 0; k < 3; k++)
    fd[k] = ZY_DIFF_AT(r1, k, det3(A));
  zy_check_array("det3/dA[1] (finite diff)", d1, fd, 3, ZY_FD_TOL);
  zy_check_close("det3 shadow rows kept", dA[0] == d0 && dA[1] == d1, 1, 0);

  double x[3] = {0.4, -0.9, 1.3}, dx[3] = {0};
  double e0[3] = {0}, e1[3] = {0}, *dB[2] = {e0, e1};
  __enzyme_autodiff((void *)norm_ax, A, dB, x, dx);
  double y0 = r0[0] * x[0] + r0[1] * x[1] + r0[2] * x[2];
  double y1 = r1[0] * x[0] + r1[1] * x[1] + r1[2] * x[2];
  double want[3];
  for (int k = 0; k < 3; k++) {
    want[k] = 2 * y0 * r0[k] + 2 * y1 * r1[k];
    fd[k] = ZY_DIFF_AT(x, k, norm_ax(A, x));
  }
  zy_check_array("norm_ax/dx", dx, want, 3, ZY_TOL);
  zy_check_array("norm_ax/dx (finite diff)", dx, fd, 3, ZY_FD_TOL);
  for (int k = 0; k < 3; k++)
    want[k] = 2 * y1 * x[k];
  zy_check_array("norm_ax/dA[1]", e1, want, 3, ZY_TOL);

  {
    double p[3] = {1.5, -2.0, 0.75}, dp[3] = {0};
    double *slot[2] = {NULL, NULL}, *dslot[2] = {NULL, NULL};
    __enzyme_autodiff((void *)store_then_read, slot, dslot, p, dp);
    zy_check_close("store_then_read primal", slot[1] == p + 1, 1, 0);
    zy_check_close("store_then_read shadow stored", dslot[0] == dp, 1, 0);
    zy_check_close("store_then_read shadow stored + 1", dslot[1] == dp + 1, 1,
                   0);
    double wp[3] = {p[1] * p[2], p[0] * p[2], p[0] * p[1]};
    zy_check_array("store_then_read/dp", dp, wp, 3, ZY_TOL);
  }

  {
    double a[2] = {0.8, 1.7}, b[2] = {-0.4, 2.2}, da[2] = {0}, db[2] = {0};
    double *M[2] = {a, b}, *dM[2] = {da, db};
    __enzyme_autodiff((void *)swap_rows, M, dM);
    zy_check_close("swap_rows primal", M[0] == b && M[1] == a, 1, 0);
    zy_check_close("swap_rows shadow swapped", dM[0] == db && dM[1] == da, 1,
                   0);
    /* b[0] - 3 a[0] b[1] */
    zy_check_close("swap_rows/da[0]", da[0], -3 * b[1], ZY_TOL);
    zy_check_close("swap_rows/da[1]", da[1], 0, ZY_TOL);
    zy_check_close("swap_rows/db[0]", db[0], 1, ZY_TOL);
    zy_check_close("swap_rows/db[1]", db[1], -3 * a[0], ZY_TOL);
  }

  {
    double u[2] = {0.5, 1.5}, v[2] = {-1.0, 2.5}, w[1] = {3.0};
    double du[2] = {0}, dv[2] = {0}, dw[1] = {0};
    double *pu[2] = {u, v}, *pw[1] = {w};
    double *dpu[2] = {du, dv}, *dpw[1] = {dw};
    double **P[2] = {pu, pw}, **dP[2] = {dpu, dpw};
    __enzyme_autodiff((void *)three, P, dP);
    zy_check_close("three/du[0]", du[0], v[1], ZY_TOL);
    zy_check_close("three/dv[1]", dv[1], u[0], ZY_TOL);
    zy_check_close("three/dw[0]", dw[0], 1, ZY_TOL);
    zy_check_close("three/du[1]", du[1], 0, ZY_TOL);
  }
  return zy_report();
}
