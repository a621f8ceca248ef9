// A loop's cache buffers are kept for the gradient's next call (up to 32
// MiB per loop, -zymase-keep-buffers-mb; larger ones are freed) instead of
// being freed: calls with growing and shrinking trip counts reuse or grow
// them, and two threads calling the same gradient at once take turns at
// them (the one that finds none allocates its own).  Every gradient is
// checked against finite differences, also with a 1 MiB limit and with
// keeping turned off (0).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -lpthread -o %t0 && %t0
// RUN: %clang -O2 %s -lm -lpthread -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -lpthread -o %t3 && %t3 %}
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-keep-buffers-mb=1 %s -lm -lpthread -o %tk1 && %tk1
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-keep-buffers-mb=0 %s -lm -lpthread -o %tk0 && %tk0
// RUN: %clang -O2 -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-keep-buffers-mb=0 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=NOKEEP
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

// CHECK: @zymase.keep.{{.*}} = internal global ptr @zymase.keep.none
// NOKEEP-NOT: @zymase.keep

/* u overwritten in place: the reverse sweep needs every iteration's
 * old value and sin, cached per iteration */
double walk(double *u, int n) {
  double s = 0;
  for (int i = 1; i < n; i++) {
    u[i] = 0.3 * sin(u[i - 1]) + 0.5 * u[i] * u[i];
    s += u[i] * u[i];
  }
  return s;
}

static double walk_copy(const double *u0, int n) {
  double *u = malloc(sizeof(double) * n);
  memcpy(u, u0, sizeof(double) * n);
  double r = walk(u, n);
  free(u);
  return r;
}

/* The gradient at n, checked on a few coordinates; 0 when they agree. */
static int check_at(int n) {
  double *u0 = malloc(sizeof(double) * n), *u = malloc(sizeof(double) * n);
  double *du = calloc(n, sizeof(double));
  for (int k = 0; k < n; k++)
    u0[k] = 0.3 + 0.5 * sin(1.7 * k);
  memcpy(u, u0, sizeof(double) * n);
  __enzyme_autodiff((void *)walk, enzyme_dup, u, du, enzyme_const, n);
  int bad = 0;
  int ks[3] = {0, n / 2, n - 1};
  for (int j = 0; j < 3; j++) {
    int k = ks[j];
    double want = ZY_DIFF(t, u0[k], (u[k] = t, memcpy(u, u0, sizeof(double) * k),
                                     memcpy(u + k + 1, u0 + k + 1,
                                            sizeof(double) * (n - k - 1)),
                                     walk_copy(u, n)));
    double scale = fabs(want) > 1 ? fabs(want) : 1;
    /* the differences of a sum of 10^6 terms are good to about 1e-7 */
    bad |= !(fabs(du[k] - want) <= (n > 100000 ? 1e-5 : ZY_FD_TOL) * scale);
  }
  free(u0);
  free(u);
  free(du);
  return bad;
}

static void *thread_main(void *arg) {
  int bad = 0, base = *(int *)arg;
  for (int r = 0; r < 20; r++)
    bad |= check_at(base + 37 * (r % 5));
  return (void *)(long)bad;
}

int main(void) {
  /* 2200000 iterations: 35 MB of buffers, freed rather than kept */
  int sizes[] = {5, 3000, 2, 40000, 7, 3000, 1, 2200000, 50, 100000};
  for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    char what[32];
    snprintf(what, sizeof what, "walk n=%d", sizes[k]);
    zy_check_close(what, check_at(sizes[k]), 0, 0);
  }
  pthread_t t[2];
  int base[2] = {100, 2000};
  for (int k = 0; k < 2; k++)
    pthread_create(&t[k], NULL, thread_main, &base[k]);
  for (int k = 0; k < 2; k++) {
    void *r;
    pthread_join(t[k], &r);
    zy_check_close("thread", (double)(long)r, 0, 0);
  }
  return zy_report();
}
