// Gradients through MPI collectives: MPI_Bcast (the root gets every rank's
// adjoint), MPI_Reduce and MPI_Allreduce with MPI_SUM (also MPI_IN_PLACE,
// and on MPI_FLOAT), MPI_Gather, MPI_Scatter, MPI_Allgather, MPI_Alltoall,
// MPI_Scan, MPI_Exscan and MPI_Reduce_scatter_block with MPI_SUM, and
// MPI_IN_PLACE in Gather and Scatter (root), Allgather and Scan;
// each rank checks its slice of the gradient against collective central
// finite differences (closed forms for Bcast and Allreduce), on 2 and 3
// ranks.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0 && %mpirun 2 %t0 && %mpirun 3 %t0
// RUN: %clang -O2 %s %mpi-flags -lm -o %t2 && %mpirun 2 %t2 && %mpirun 3 %t2
// RUN: %if mpich %{ %clang -O0 %s %mpich-flags -lm -o %t4 && %mpichrun 2 %t4 %}
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 && %mpichrun 2 %t5 %}
#include "mpi_check.h"

#include <stdlib.h>

enum { N = 3, MAXR = 8 };

static double global(double local) {
  double all;
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* The last rank's x, broadcast; every rank weighs it by its rank. */
double bcast(double *x, int n) {
  MPI_Bcast(x, n, MPI_DOUBLE, zy_size - 1, MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += (zy_rank + 1) * x[i] * x[i];
  return global(l);
}

/* Reduce to rank 0 (into a separate buffer), then to the last rank in
 * place; only the roots use the results. */
double reduce(double *x, int n) {
  double s[N], t[N], l = 0;
  for (int i = 0; i < n; i++)
    s[i] = sin(x[i]) * (zy_rank + 2);
  MPI_Reduce(s, t, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (zy_rank == 0)
    for (int i = 0; i < n; i++)
      l += t[i] * t[i];
  for (int i = 0; i < n; i++)
    s[i] = x[i] * x[i];
  if (zy_rank == zy_size - 1)
    MPI_Reduce(MPI_IN_PLACE, s, n, MPI_DOUBLE, MPI_SUM, zy_size - 1,
               MPI_COMM_WORLD);
  else
    MPI_Reduce(s, NULL, n, MPI_DOUBLE, MPI_SUM, zy_size - 1, MPI_COMM_WORLD);
  if (zy_rank == zy_size - 1)
    for (int i = 0; i < n; i++)
      l += exp(0.1 * s[i]);
  return global(l);
}

/* Allreduce into a buffer, then in place. */
double allreduce(double *x, int n) {
  double y[N], z[N];
  MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    z[i] = y[i] * x[i] * (zy_rank + 1);
  MPI_Allreduce(MPI_IN_PLACE, z, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += z[i];
  return l; /* the same on every rank already */
}

/* Allreduce of floats. */
double allreduce_float(double *x, int n) {
  float f[N], g[N];
  for (int i = 0; i < n; i++)
    f[i] = (float)x[i];
  MPI_Allreduce(f, g, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += 0.5 * (double)g[i] * (double)g[i];
  return l;
}

/* Gather to rank 1 % size, then scatter back something else from it. */
double gather_scatter(double *x, int n) {
  double all[N * MAXR], back[N], l = 0;
  int root = 1 % zy_size;
  MPI_Gather(x, n, MPI_DOUBLE, all, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  if (zy_rank == root)
    for (int k = 0; k < n * zy_size; k++)
      all[k] = all[k] * all[(k + 1) % (n * zy_size)];
  MPI_Scatter(all, n, MPI_DOUBLE, back, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    l += back[i] * (i + 1 + zy_rank);
  return global(l);
}

/* Allgather, then Alltoall of one element per pair of ranks. */
double allgather_alltoall(double *x, int n) {
  double all[N * MAXR], mine[MAXR], theirs[MAXR], l = 0;
  MPI_Allgather(x, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int k = 0; k < n * zy_size; k++)
    l += all[k] * all[k] * (zy_rank + 1) * (k % 3 + 1);
  for (int r = 0; r < zy_size; r++)
    mine[r] = x[r % n] * (r + 1);
  MPI_Alltoall(mine, 1, MPI_DOUBLE, theirs, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int r = 0; r < zy_size; r++)
    l += theirs[r] * theirs[r] * theirs[r] * (zy_rank + 1);
  return global(l);
}

/* Prefix sums: inclusive, exclusive (rank 0's result is undefined and
 * not used); and a reduction scattered in blocks of 2. */
double scans(double *x, int n) {
  double y[N], z[N], s[2 * MAXR], b[2], l = 0;
  MPI_Scan(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    z[i] = x[i] * x[i];
  double w[N];
  MPI_Exscan(z, w, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    l += y[i] * y[i] * (zy_rank + 1) + (zy_rank ? w[i] * sin(w[i]) : 0);
  for (int k = 0; k < 2 * zy_size; k++)
    s[k] = x[k % n] * (k + 1);
  MPI_Reduce_scatter_block(s, b, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  l += b[0] * b[1] * (zy_rank + 2);
  return global(l);
}

/* MPI_IN_PLACE: Gather and Scatter at the root, Allgather, Scan. */
double in_place(double *x, int n) {
  double all[N * MAXR], l = 0, y[N];
  int root = zy_size - 1;
  for (int k = 0; k < N * MAXR; k++)
    all[k] = x[k % n] * (k + 1) * 0.1;
  if (zy_rank == root) {
    for (int i = 0; i < n; i++)
      all[root * n + i] = sin(x[i]);
    MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_DOUBLE, root,
               MPI_COMM_WORLD);
  } else {
    for (int i = 0; i < n; i++)
      y[i] = sin(x[i]);
    MPI_Gather(y, n, MPI_DOUBLE, NULL, 0, MPI_DOUBLE, root, MPI_COMM_WORLD);
  }
  if (zy_rank == root) {
    for (int k = 0; k < n * zy_size; k++)
      l += all[k] * all[k] * (k + 1);
    for (int k = 0; k < n * zy_size; k++)
      all[k] = all[k] * x[k % n];
    MPI_Scatter(all, n, MPI_DOUBLE, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root,
                MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
      y[i] = all[root * n + i];
  } else {
    MPI_Scatter(NULL, 0, MPI_DOUBLE, y, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  }
  double g[N * MAXR];
  for (int k = 0; k < N * MAXR; k++)
    g[k] = x[(k + 1) % n];
  for (int i = 0; i < n; i++)
    g[zy_rank * n + i] = y[i] * y[i];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, n, MPI_DOUBLE,
                MPI_COMM_WORLD);
  for (int k = 0; k < n * zy_size; k++)
    l += g[k] * (k % 4 + 1) * (zy_rank + 1);
  MPI_Scan(MPI_IN_PLACE, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    l += y[i] * y[i] * y[i];
  return global(l);
}

static double x0(int rank, int i) { return 0.4 + 0.15 * i + 0.1 * rank; }

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = x0(zy_rank, i);
  ZY_CHECK_GRAD("bcast", bcast, x, N, dx);
  /* Only the root's x matters: d/dx_i = size * sum_r (r+1) 2 x_i */
  double w = zy_size * (zy_size + 1) / 2.0;
  for (int i = 0; i < N; i++)
    zy_close("bcast closed form", i, dx[i],
             zy_rank == zy_size - 1 ? zy_size * w * 2 * x[i] : 0, 1e-12);
  ZY_CHECK_GRAD("reduce", reduce, x, N, dx);
  ZY_CHECK_GRAD("allreduce", allreduce, x, N, dx);
  /* L = sum_i sum_q (q+1) x_qi Y_i with Y_i = sum_q x_qi:
   * dL/dx_ri = (r+1) Y_i + sum_q (q+1) x_qi */
  double Y[N];
  for (int i = 0; i < N; i++) {
    double W = 0;
    Y[i] = 0;
    for (int q = 0; q < zy_size; q++)
      Y[i] += x0(q, i), W += (q + 1) * x0(q, i);
    zy_close("allreduce closed form", i, dx[i],
             zy_size * ((zy_rank + 1) * Y[i] + W), 1e-12);
  }
  zy_fd_h = 1e-3, zy_fd_tol = 1e-3;
  ZY_CHECK_GRAD("allreduce_float", allreduce_float, x, N, dx);
  zy_fd_h = 1e-6, zy_fd_tol = 1e-6;
  for (int i = 0; i < N; i++) /* size * Y_i, in floats */
    zy_close("allreduce_float closed form", i, dx[i], zy_size * Y[i], 1e-5);
  ZY_CHECK_GRAD("gather_scatter", gather_scatter, x, N, dx);
  ZY_CHECK_GRAD("allgather_alltoall", allgather_alltoall, x, N, dx);
  ZY_CHECK_GRAD("scans", scans, x, N, dx);
  ZY_CHECK_GRAD("in_place", in_place, x, N, dx);
  return zy_mpi_finish();
}
