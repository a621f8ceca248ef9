// Gradients through MPI_Reduce and MPI_Allreduce with MPI_MAX, MPI_MIN,
// MPI_PROD, and MPI_MAXLOC/MPI_MINLOC on MPI_DOUBLE_INT pairs: the adjoint
// of a maximum or minimum goes to the rank (and element) that won, the
// lowest rank among ties; a product's to each rank times the other ranks'
// factors, also with a zero factor; MPI_IN_PLACE too, also in a function
// of its own (split mode).  Collective central finite differences where
// the loss is smooth, closed forms for ties and zeros, on 2 and 3 ranks.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0 && %mpirun 2 %t0 && %mpirun 3 %t0
// RUN: %clang -O2 %s %mpi-flags -lm -o %t2 && %mpirun 2 %t2 && %mpirun 3 %t2
// RUN: %if mpich %{ %clang -O0 %s %mpich-flags -lm -o %t4 && %mpichrun 2 %t4 %}
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 && %mpichrun 2 %t5 %}
#include "mpi_check.h"

enum { N = 4 };

static double global(double local) {
  double all;
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Distinct values on every rank: each element has one winner. */
double maxmin(double *x, int n) {
  double v[N], hi[N], lo[N];
  for (int i = 0; i < n; i++)
    v[i] = sin(3 * x[i] + zy_rank);
  MPI_Allreduce(v, hi, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    lo[i] = v[i];
  double l = 0;
  for (int i = 0; i < n; i++)
    l += hi[i] * (i + 1) + lo[i] * lo[i];
  return l;
}

/* MAX reduced to rank 1 % size, which squares it. */
double reduce_max(double *x, int n) {
  double v[N], m[N], l = 0;
  int root = 1 % zy_size;
  for (int i = 0; i < n; i++)
    v[i] = x[i] * (zy_rank + 1);
  MPI_Reduce(v, m, n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
  if (zy_rank == root)
    for (int i = 0; i < n; i++)
      l += m[i] * m[i];
  return global(l);
}

/* The same x on every rank: all tie, rank 0 gets the derivative. */
double tie(double *x, int n) {
  double m[N], l = 0;
  MPI_Allreduce(x, m, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    l += m[i] * (i + 1);
  return l;
}

double prod(double *x, int n) {
  double p[N], l = 0;
  MPI_Allreduce(x, p, n, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    l += p[i] * (i + 1);
  double q[N];
  for (int i = 0; i < n; i++)
    q[i] = x[i] + 1;
  if (zy_rank == 0)
    MPI_Reduce(MPI_IN_PLACE, q, n, MPI_DOUBLE, MPI_PROD, 0, MPI_COMM_WORLD);
  else
    MPI_Reduce(q, NULL, n, MPI_DOUBLE, MPI_PROD, 0, MPI_COMM_WORLD);
  if (zy_rank == 0)
    for (int i = 0; i < n; i++)
      l += sqrt(q[i]);
  return global(l) / zy_size;
}

/* MPI_MAXLOC and MPI_MINLOC on MPI_DOUBLE_INT pairs: the value's
 * adjoint goes to the rank that won, the index carries none. */
typedef struct {
  double v;
  int i;
} DI;

double loc(double *x, int n) {
  DI in[N], out[N], r[N];
  double l = 0;
  for (int i = 0; i < n; i++)
    in[i].v = sin(3 * x[i] + zy_rank), in[i].i = 10 * zy_rank + i;
  MPI_Allreduce(in, out, n, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    l += out[i].v * (i + 1) + 0.001 * out[i].i;
  for (int i = 0; i < n; i++)
    in[i].v = x[i] * x[i] * (zy_rank + 1), in[i].i = zy_rank;
  MPI_Reduce(in, r, n, MPI_DOUBLE_INT, MPI_MINLOC, 0, MPI_COMM_WORLD);
  if (zy_rank == 0)
    for (int i = 0; i < n; i++)
      l += r[i].v * r[i].v * (r[i].i + 1);
  return global(l);
}

/* Collectives in a function of its own (not inlined): differentiated
 * through its augmented forward and reverse functions. */
static __attribute__((noinline)) void mix(double *v, double *w, int n) {
  MPI_Reduce(v, w, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Bcast(w, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int cnt[8], dsp[8];
  for (int q = 0; q < zy_size; q++)
    cnt[q] = 1, dsp[q] = q;
  double g[8];
  MPI_Allgatherv(v, 1, MPI_DOUBLE, g, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
  w[1] += g[zy_size - 1] * g[0];
}

double callee(double *x, int n) {
  double v[N], w[N], l = 0;
  for (int i = 0; i < n; i++)
    v[i] = sin(x[i] + zy_rank);
  mix(v, w, n);
  for (int i = 0; i < n; i++)
    l += w[i] * w[i] + v[i] * x[i];
  return l;
}

static double x0(int rank, int i) {
  return i == 1 && rank == 0 ? 0.0 : 0.3 + 0.2 * i + 0.17 * rank;
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.2 * i + 0.17 * zy_rank;
  ZY_CHECK_GRAD("maxmin", maxmin, x, N, dx);
  ZY_CHECK_GRAD("reduce_max", reduce_max, x, N, dx);
  ZY_CHECK_GRAD("callee", callee, x, N, dx);
  ZY_CHECK_GRAD("loc", loc, x, N, dx);
  double t[N];
  for (int i = 0; i < N; i++)
    t[i] = 0.5 + i;
  double tx[N];
  memcpy(tx, t, sizeof t);
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)tie, enzyme_dup, tx, dx, enzyme_const, N);
  for (int i = 0; i < N; i++)
    zy_close("tie", i, dx[i], zy_rank == 0 ? zy_size * (i + 1.0) : 0, 0);
  /* A zero factor on rank 0, element 1. */
  for (int i = 0; i < N; i++)
    x[i] = x0(zy_rank, i);
  ZY_CHECK_GRAD("prod", prod, x, N, dx);
  for (int i = 0; i < N; i++) {
    double others = 1, others1 = 1;
    for (int q = 0; q < zy_size; q++)
      if (q != zy_rank)
        others *= x0(q, i), others1 *= x0(q, i) + 1;
    double all1 = others1 * (x[i] + 1);
    zy_close("prod closed form", i, dx[i],
             zy_size * (i + 1) * others + 0.5 / sqrt(all1) * others1, 1e-12);
  }
  return zy_mpi_finish();
}
