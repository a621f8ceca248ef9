// The race checker itself (no plugin involved): a parallel sum into a
// shared variable without reduction (-DRACY) must make %archer-run fail
// (ThreadSanitizer, with Archer telling it OpenMP's synchronization), and
// the same sum with reduction(+), a critical section, an atomic update and
// a barrier between two phases must pass.  The OpenMP tests rely on this
// run to catch races in the gradients the plugin makes.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp, archer
// RUN: %archer-clang -O2 -DRACY %s -lm -o %tr
// RUN: %not %archer-run %tr 2>&1 | %FileCheck %s --check-prefix=RACE
// RUN: %archer-clang -O2 %s -lm -o %tc
// RUN: %archer-run %tc 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RUN: %archer-clang -O0 %s -lm -o %t0
// RUN: %archer-run %t0 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RACE: Archer detected OpenMP application with TSan
// RACE: WARNING: ThreadSanitizer: data race
// RACE: omp-run: '{{.*}}' failed with OMP_NUM_THREADS=2 (exit status 66)
// CLEAN: Archer detected OpenMP application with TSan
// CLEAN-NOT: ThreadSanitizer
// CLEAN: omp-run: OMP_NUM_THREADS=4
// CLEAN: Archer detected OpenMP application with TSan
// CLEAN: ok
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1001

int main(void) {
  static double x[N], y[N], z[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.5 * i;
  double s = 0, c = 0, a = 0;
#ifdef RACY
#pragma omp parallel for
#else
#pragma omp parallel for reduction(+ : s)
#endif
  for (int i = 0; i < N; i++)
    s += x[i];
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
#pragma omp critical
    c += x[i];
#pragma omp atomic
    a += x[i];
  }
#pragma omp parallel
  {
#pragma omp for nowait
    for (int i = 0; i < N; i++)
      y[i] = sin(x[i]);
#pragma omp barrier
#pragma omp for
    for (int i = 0; i < N; i++)
      z[i] = y[(i + 1) % N] * y[i];
  }
  double want = 0.5 * N * (N - 1) / 2;
  int bad = s != want || c != want || a != want;
  for (int i = 0; i < N; i++)
    bad |= z[i] != sin(x[(i + 1) % N]) * sin(x[i]);
  printf("%s: s=%g c=%g a=%g (want %g)\n", bad ? "FAIL" : "ok", s, c, a, want);
  return bad;
}
