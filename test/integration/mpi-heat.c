// A distributed 1-D heat equation with a cubic sink: each rank owns N
// cells, exchanges one halo cell with each neighbour every step (blocking
// MPI_Sendrecv, or MPI_Irecv/MPI_Isend/MPI_Waitall), MPI_PROC_NULL at the
// ends of the rod, 60 steps, and a loss summed by MPI_Allreduce.  The halos
// are overwritten every step: the values each step read must be cached.
// The gradient with respect to the initial temperatures is checked on each
// rank against collective central finite differences, and the two
// exchanges must give the same gradient, also with persistent requests
// (MPI_Send_init/Recv_init, MPI_Start/Startall, MPI_Request_free), and
// with the exchange in a function of its own (split into an augmented
// forward and a reverse); 2 and 3 ranks.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0 && %mpirun 2 %t0 && %mpirun 3 %t0
// RUN: %clang -O2 %s %mpi-flags -lm -o %t2 && %mpirun 2 %t2 && %mpirun 3 %t2
// RUN: %if mpich %{ %clang -O0 %s %mpich-flags -lm -o %t4 && %mpichrun 2 %t4 %}
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 && %mpichrun 2 %t5 %}
#include "mpi_check.h"

enum { N = 6, STEPS = 60 };

static double global(double local) {
  double all;
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static void step(double *u, double *v, int n) {
  for (int i = 1; i <= n; i++)
    v[i] = u[i] + 0.3 * (u[i - 1] - 2 * u[i] + u[i + 1]) -
           0.05 * u[i] * u[i] * u[i];
  for (int i = 1; i <= n; i++)
    u[i] = v[i];
}

static double loss(const double *u, int n) {
  double l = 0;
  for (int i = 1; i <= n; i++)
    l += u[i] * u[i] * (1 + 0.1 * i);
  return global(l);
}

double heat_blocking(double *x, int n) {
  double u[N + 2], v[N + 2];
  int left = zy_rank ? zy_rank - 1 : MPI_PROC_NULL;
  int right = zy_rank + 1 < zy_size ? zy_rank + 1 : MPI_PROC_NULL;
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  for (int t = 0; t < STEPS; t++) {
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    step(u, v, n);
  }
  return loss(u, n);
}

double heat_nonblocking(double *x, int n) {
  double u[N + 2], v[N + 2];
  int left = zy_rank ? zy_rank - 1 : MPI_PROC_NULL;
  int right = zy_rank + 1 < zy_size ? zy_rank + 1 : MPI_PROC_NULL;
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  for (int t = 0; t < STEPS; t++) {
    MPI_Request r[4];
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    step(u, v, n);
  }
  return loss(u, n);
}

/* Persistent requests: made once, started every step. */
double heat_persistent(double *x, int n) {
  double u[N + 2], v[N + 2];
  int left = zy_rank ? zy_rank - 1 : MPI_PROC_NULL;
  int right = zy_rank + 1 < zy_size ? zy_rank + 1 : MPI_PROC_NULL;
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  MPI_Request r[4];
  MPI_Recv_init(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Recv_init(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
  MPI_Send_init(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
  MPI_Send_init(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
  for (int t = 0; t < STEPS; t++) {
    if (t % 2) {
      MPI_Startall(4, r);
    } else {
      for (int k = 0; k < 4; k++)
        MPI_Start(&r[k]);
    }
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    step(u, v, n);
  }
  for (int k = 0; k < 4; k++)
    MPI_Request_free(&r[k]);
  return loss(u, n);
}

/* The exchange in a function of its own (not inlined): its calls go
 * through the callee's augmented forward and reverse functions. */
static __attribute__((noinline)) void exchange(double *u, int n) {
  int left = zy_rank ? zy_rank - 1 : MPI_PROC_NULL;
  int right = zy_rank + 1 < zy_size ? zy_rank + 1 : MPI_PROC_NULL;
  MPI_Request r[4];
  MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
}

double heat_callee(double *x, int n) {
  double u[N + 2], v[N + 2];
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  for (int t = 0; t < STEPS; t++) {
    exchange(u, n);
    step(u, v, n);
  }
  return loss(u, n);
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  double x[N], dx[N], dy[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.5 + 0.4 * sin(i + N * zy_rank);
  ZY_CHECK_GRAD("heat_blocking", heat_blocking, x, N, dx);
  ZY_CHECK_GRAD("heat_nonblocking", heat_nonblocking, x, N, dy);
  for (int i = 0; i < N; i++)
    zy_close("blocking = nonblocking", i, dy[i], dx[i], 1e-12);
  ZY_CHECK_GRAD("heat_callee", heat_callee, x, N, dy);
  for (int i = 0; i < N; i++)
    zy_close("blocking = callee", i, dy[i], dx[i], 1e-12);
  ZY_CHECK_GRAD("heat_persistent", heat_persistent, x, N, dy);
  for (int i = 0; i < N; i++)
    zy_close("blocking = persistent", i, dy[i], dx[i], 1e-12);
  return zy_mpi_finish();
}
