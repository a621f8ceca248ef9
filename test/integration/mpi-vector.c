// Gradients through the collectives with per-rank counts and
// displacements: MPI_Gatherv (rank r sends r + 1 values; the gaps between
// the blocks hold values the call does not overwrite, whose derivatives
// must survive), MPI_Scatterv, MPI_Allgatherv and MPI_Alltoallv; each rank
// checks its slice of the gradient against collective central finite
// differences, on 2 and 3 ranks.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0 && %mpirun 2 %t0 && %mpirun 3 %t0
// RUN: %clang -O2 %s %mpi-flags -lm -o %t2 && %mpirun 2 %t2 && %mpirun 3 %t2
// RUN: %if mpich %{ %clang -O0 %s %mpich-flags -lm -o %t4 && %mpichrun 2 %t4 %}
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 && %mpichrun 2 %t5 %}
#include "mpi_check.h"

enum { N = 4, MAXR = 4, BIG = 64 };

static double global(double local) {
  double all;
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Rank q's block at 2 q + q (q + 1) / 2 ... : r + 1 values, a gap of 2. */
static void layout(int *cnt, int *dsp) {
  for (int q = 0, at = 0; q < zy_size; q++) {
    cnt[q] = q + 1;
    dsp[q] = at + 2;
    at = dsp[q] + cnt[q];
  }
}

double gatherv(double *x, int n) {
  int cnt[MAXR], dsp[MAXR], root = zy_size - 1;
  layout(cnt, dsp);
  double all[BIG], l = 0, s[N];
  for (int k = 0; k < BIG; k++)
    all[k] = x[k % n] * 0.5; /* the gaps keep these */
  for (int i = 0; i < n; i++)
    s[i] = sin(x[i]);
  MPI_Gatherv(s, zy_rank + 1, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, root,
              MPI_COMM_WORLD);
  cnt[0] = 99; /* changed after the call: the reverse must not see it */
  for (int k = 0; k < dsp[zy_size - 1] + zy_size + 1; k++)
    l += all[k] * all[k] * (k + 1);
  return global(l);
}

double scatterv(double *x, int n) {
  int cnt[MAXR], dsp[MAXR];
  layout(cnt, dsp);
  double all[BIG], r[N], l = 0;
  for (int k = 0; k < BIG; k++)
    all[k] = x[k % n] * (k + 1);
  MPI_Scatterv(all, cnt, dsp, MPI_DOUBLE, r, zy_rank + 1, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
  for (int i = 0; i <= zy_rank; i++)
    l += r[i] * r[i] * x[i];
  return global(l);
}

double allgatherv(double *x, int n) {
  int cnt[MAXR], dsp[MAXR];
  layout(cnt, dsp);
  double all[BIG], l = 0;
  for (int k = 0; k < BIG; k++)
    all[k] = 0.25 * x[(k + 1) % n];
  MPI_Allgatherv(x, zy_rank + 1, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE,
                 MPI_COMM_WORLD);
  for (int k = 0; k < dsp[zy_size - 1] + zy_size; k++)
    l += all[k] * all[k] * (zy_rank + 1) * (k % 3 + 1);
  return global(l);
}

/* Rank r sends q + 1 values to rank q; receives r + 1 from each. */
double alltoallv(double *x, int n) {
  int sc[MAXR], sd[MAXR], rc[MAXR], rd[MAXR];
  double s[BIG], r[BIG], l = 0;
  for (int q = 0, at = 0; q < zy_size; q++) {
    sc[q] = q + 1, sd[q] = at, at += q + 1;
    rc[q] = zy_rank + 1, rd[q] = 1 + q * (zy_rank + 2);
  }
  for (int k = 0; k < BIG; k++)
    s[k] = x[k % n] * x[(k + 1) % n], r[k] = x[k % n];
  MPI_Alltoallv(s, sc, sd, MPI_DOUBLE, r, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int k = 0; k < zy_size * (zy_rank + 2) + 1; k++)
    l += r[k] * r[k] * r[k] * (k + 1);
  return global(l);
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.2 * i + 0.1 * zy_rank;
  ZY_CHECK_GRAD("gatherv", gatherv, x, N, dx);
  ZY_CHECK_GRAD("scatterv", scatterv, x, N, dx);
  ZY_CHECK_GRAD("allgatherv", allgatherv, x, N, dx);
  ZY_CHECK_GRAD("alltoallv", alltoallv, x, N, dx);
  return zy_mpi_finish();
}
