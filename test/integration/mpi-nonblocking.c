// Gradients through nonblocking MPI calls: a halo exchange by
// MPI_Irecv/MPI_Isend completed by MPI_Waitall (MPI_PROC_NULL at the ends,
// an integer message among the requests), a ring by MPI_Isend/MPI_Irecv
// (from MPI_ANY_SOURCE) completed one at a time by MPI_Wait in the other
// order, requests reused in a loop of steps, and completion found by
// MPI_Test in a loop, MPI_Testall, MPI_Waitany, MPI_Testany and
// MPI_Waitsome, floats through persistent requests, and MPI_Iallreduce
// (also in place), MPI_Ibcast and MPI_Ireduce; each rank checks
// its
// slice of the gradient against collective central finite differences,
// on 2 and 3 ranks.
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

double halo(double *x, int n) {
  double u[N + 2];
  int left = zy_rank ? zy_rank - 1 : MPI_PROC_NULL;
  int right = zy_rank + 1 < zy_size ? zy_rank + 1 : MPI_PROC_NULL;
  for (int i = 0; i < n; i++)
    u[i + 1] = sin(x[i]) + 1;
  u[0] = x[0];
  u[n + 1] = 2 * x[n - 1];
  int mine = zy_rank + 1, theirs = 0;
  MPI_Request req[5];
  MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
  MPI_Sendrecv(&mine, 1, MPI_INT, right, 9, &theirs, 1, MPI_INT, left, 9,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Isend(&mine, 1, MPI_INT, zy_rank, 8, MPI_COMM_WORLD, &req[4]);
  int self = 0;
  MPI_Recv(&self, 1, MPI_INT, zy_rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Waitall(5, req, MPI_STATUSES_IGNORE);
  double l = 0;
  for (int i = 1; i <= n; i++)
    l += u[i] * (u[i - 1] - 2 * u[i] + u[i + 1]) * (theirs + self);
  return global(l);
}

double ring(double *x, int n) {
  double s[N], r[N];
  int right = (zy_rank + 1) % zy_size;
  for (int i = 0; i < n; i++)
    s[i] = x[i] * x[i] * (i + 1);
  MPI_Request rs, rr;
  MPI_Status st;
  MPI_Isend(s, n, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &rs);
  MPI_Irecv(r, n, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rr);
  MPI_Wait(&rr, &st);
  MPI_Wait(&rs, MPI_STATUS_IGNORE);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += r[i] * cos(x[i]);
  return global(l);
}

/* Three steps of u <- u + neighbours, the same requests each step. */
double steps(double *x, int n) {
  double u[N], from_left[N], from_right[N];
  int right = (zy_rank + 1) % zy_size, left = (zy_rank + zy_size - 1) % zy_size;
  for (int i = 0; i < n; i++)
    u[i] = x[i];
  for (int t = 0; t < 3; t++) {
    MPI_Request req[4];
    MPI_Irecv(from_left, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(from_right, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(u, n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(u, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++)
      u[i] = 0.5 * u[i] + 0.3 * from_left[i] * from_left[i] +
             0.2 * sin(from_right[i]);
  }
  double l = 0;
  for (int i = 0; i < n; i++)
    l += u[i] * u[i];
  return global(l);
}

/* Completion found by polling: MPI_Test in a loop (the pending tests in
 * earlier iterations have no adjoint), then MPI_Testall. */
double polled(double *x, int n) {
  double s[N], r[N], l = 0;
  int right = (zy_rank + 1) % zy_size, left = (zy_rank + zy_size - 1) % zy_size;
  for (int i = 0; i < n; i++)
    s[i] = exp(0.2 * x[i]);
  MPI_Request q[2];
  MPI_Irecv(r, n, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(s, n, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &q[1]);
  int done = 0;
  while (!done)
    MPI_Test(&q[0], &done, MPI_STATUS_IGNORE);
  done = 0;
  while (!done)
    MPI_Testall(1, &q[1], &done, MPI_STATUSES_IGNORE);
  for (int i = 0; i < n; i++)
    l += r[i] * x[i] * r[i];
  return global(l);
}

/* Completion in whatever order: MPI_Waitany, MPI_Testany in a loop, and
 * MPI_Waitsome until both sends are done. */
double any_some(double *x, int n) {
  double s[N], a[N], b[N], l = 0;
  int right = (zy_rank + 1) % zy_size, left = (zy_rank + zy_size - 1) % zy_size;
  for (int i = 0; i < n; i++)
    s[i] = x[i] * x[i] + 0.5 * x[(i + 1) % n];
  MPI_Request q[4];
  MPI_Irecv(a, n, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &q[0]);
  MPI_Irecv(b, n, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &q[1]);
  MPI_Isend(s, n, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &q[2]);
  MPI_Isend(s, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &q[3]);
  int idx, flag = 0;
  MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE);
  while (!flag)
    MPI_Testany(2, q, &idx, &flag, MPI_STATUS_IGNORE);
  for (int done = 0; done < 2;) {
    int out, ind[2];
    MPI_Waitsome(2, q + 2, &out, ind, MPI_STATUSES_IGNORE);
    done += out;
  }
  for (int i = 0; i < n; i++)
    l += a[i] * sin(b[i]) * x[i];
  return global(l);
}

/* Nonblocking collectives, completed together. */
double icoll(double *x, int n) {
  double y[N], b[N], r[N], z[N], l = 0;
  int root = zy_size - 1;
  for (int i = 0; i < n; i++)
    y[i] = sin(x[i]), b[i] = x[i] * x[i], z[i] = x[i] * (zy_rank + 1);
  MPI_Request q[4];
  MPI_Iallreduce(MPI_IN_PLACE, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                 &q[0]);
  MPI_Ibcast(b, n, MPI_DOUBLE, root, MPI_COMM_WORLD, &q[1]);
  MPI_Ireduce(z, r, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &q[2]);
  double w[N];
  MPI_Iallreduce(x, w, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q[3]);
  MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
  for (int i = 0; i < n; i++)
    l += y[i] * y[i] * (zy_rank + 1) + b[i] * w[i] +
         (zy_rank ? 0 : r[i] * r[i]);
  return global(l);
}

/* Floats through persistent requests, started twice. */
double persistent_float(double *x, int n) {
  float s[N], r[N];
  double l = 0;
  int right = (zy_rank + 1) % zy_size, left = (zy_rank + zy_size - 1) % zy_size;
  MPI_Request q[2];
  MPI_Recv_init(r, n, MPI_FLOAT, left, 8, MPI_COMM_WORLD, &q[0]);
  MPI_Ssend_init(s, n, MPI_FLOAT, right, 8, MPI_COMM_WORLD, &q[1]);
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < n; i++)
      s[i] = (float)(x[i] * (k + 1));
    MPI_Start(&q[0]);
    MPI_Start(&q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++)
      l += (double)r[i] * (double)r[i] * x[i];
  }
  MPI_Request_free(&q[0]);
  MPI_Request_free(&q[1]);
  return global(l);
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.2 + 0.25 * i + 0.1 * zy_rank;
  ZY_CHECK_GRAD("halo", halo, x, N, dx);
  ZY_CHECK_GRAD("ring", ring, x, N, dx);
  ZY_CHECK_GRAD("steps", steps, x, N, dx);
  ZY_CHECK_GRAD("polled", polled, x, N, dx);
  ZY_CHECK_GRAD("any_some", any_some, x, N, dx);
  ZY_CHECK_GRAD("icoll", icoll, x, N, dx);
  zy_fd_h = 1e-3, zy_fd_tol = 1e-3;
  ZY_CHECK_GRAD("persistent_float", persistent_float, x, N, dx);
  return zy_mpi_finish();
}
