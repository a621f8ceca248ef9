// Gradients through MPI calls on contiguous datatypes (MPI_Type_contiguous
// of MPI_DOUBLE or MPI_FLOAT, also of another contiguous type, and
// MPI_Type_dup of one): made outside the differentiated code (a global)
// and inside it (with MPI_Type_commit and MPI_Type_free there); a ring of
// Send/Recv, Isend/Irecv/Wait, Sendrecv, Sendrecv_replace and Ibcast in
// a function of its own (split mode), Bcast, Allgather, Scatter,
// Gatherv, Scatterv, Allgatherv, Alltoallv (counts and displacements in
// units of the datatype), a datatype chosen per iteration of a loop,
// Reduce(SUM), Allreduce with MPI_MAX and MPI_PROD applied elementwise,
// Scan, on doubles and floats.  Collective central finite differences on
// 2 and 3 ranks, and a closed form for MAX.  MPI libraries refuse
// predefined reduction ops on derived datatypes (the primal stops), while
// the differentiated code reduces the base elements: the finite
// differences of reductions run the same function with the base datatype
// and k times the count (zy_base).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0 && %mpirun 2 %t0 && %mpirun 3 %t0
// RUN: %clang -O2 %s %mpi-flags -lm -o %t2 && %mpirun 2 %t2 && %mpirun 3 %t2
// RUN: %if mpich %{ %clang -O0 %s %mpich-flags -lm -o %t4 && %mpichrun 2 %t4 && %mpichrun 3 %t4 %}
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 && %mpichrun 2 %t5 && %mpichrun 3 %t5 %}
#include "mpi_check.h"

/* Set while finite differences run: reductions use base datatypes. */
static int zy_base;
#define CHECK(what, f, x0, n, dx)                                              \
  do {                                                                         \
    double x_[64];                                                             \
    memcpy(x_, x0, (n) * sizeof *x_);                                          \
    memset(dx, 0, (n) * sizeof *dx);                                           \
    __enzyme_autodiff((void *)f, enzyme_dup, x_, dx, enzyme_const, n);         \
    zy_base = 1;                                                               \
    zy_fd_compare(what, f, x0, n, dx);                                         \
    zy_base = 0;                                                               \
  } while (0)

enum { N = 6 };
/* Made in main: pairs and triples of doubles, pairs of pairs (nested),
 * a duplicate of the triples, pairs of floats. */
static MPI_Datatype pair2, triple3, quad4, dup3, fpair2;

static double global(double local) {
  double all;
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* In a function of its own (split mode): Sendrecv_replace and Ibcast. */
static __attribute__((noinline)) void shift(double *r, int n, int next,
                                            int prev) {
  MPI_Sendrecv_replace(r, n / 2, pair2, next, 11, prev, 11, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  MPI_Request q;
  MPI_Ibcast(r, 1, triple3, 0, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
}

/* Ring: each rank sends its N values as N/2 pairs to the next rank. */
double ring(double *x, int n) {
  double s[N], r[N], r2[N], r3[N], l = 0;
  int next = (zy_rank + 1) % zy_size, prev = (zy_rank + zy_size - 1) % zy_size;
  for (int i = 0; i < n; i++)
    s[i] = sin(x[i]) * (zy_rank + 1);
  if (zy_rank % 2 == 0) {
    MPI_Send(s, n / 2, pair2, next, 7, MPI_COMM_WORLD);
    MPI_Recv(r, n / 2, pair2, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(r, n / 2, pair2, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(s, n / 2, pair2, next, 7, MPI_COMM_WORLD);
  }
  MPI_Request q[2];
  MPI_Irecv(r2, n / 3, triple3, prev, 8, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(r, n / 3, triple3, next, 8, MPI_COMM_WORLD, &q[1]);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  MPI_Sendrecv(r2, 1, quad4, next, 9, r3, 4, MPI_DOUBLE, prev, 9,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 4; i++)
    l += r3[i] * r3[i] * (i + 1);
  for (int i = 4; i < n; i++)
    l += r2[i] * x[i];
  shift(r, n, next, prev);
  for (int i = 0; i < n; i++)
    l += r[i] * r[i] * (i + 0.5);
  return global(l);
}

/* In a loop, the datatype chosen per iteration (MPI_DOUBLE or pairs),
 * the buffers overwritten each time. */
double steps(double *x, int n) {
  double s[N], r[N], l = 0;
  int next = (zy_rank + 1) % zy_size, prev = (zy_rank + zy_size - 1) % zy_size;
  for (int i = 0; i < n; i++)
    s[i] = x[i];
  for (int step = 0; step < 3; step++) {
    MPI_Datatype t = step % 2 ? pair2 : MPI_DOUBLE;
    int c = step % 2 ? n / 2 : n;
    MPI_Sendrecv(s, c, t, next, 1, r, c, t, prev, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
      s[i] = sin(r[i]) * s[i] + 0.1 * x[i];
  }
  for (int i = 0; i < n; i++)
    l += s[i] * (i + 1);
  return global(l);
}

/* Collectives, with a type made (and freed) in the differentiated code. */
double colls(double *x, int n) {
  MPI_Datatype t3;
  MPI_Type_contiguous(3, MPI_DOUBLE, &t3);
  MPI_Type_commit(&t3);
  double v[N], all[8 * N], w[N], s[N], l = 0;
  for (int i = 0; i < n; i++)
    v[i] = x[i] * x[i] + zy_rank;
  MPI_Bcast(v, 2, t3, 1 % zy_size, MPI_COMM_WORLD);
  MPI_Allgather(v, 2, t3, all, 2, t3, MPI_COMM_WORLD);
  for (int i = 0; i < n * zy_size; i++)
    l += all[i] * cos(0.1 * i);
  MPI_Reduce(v, w, zy_base ? 3 : 1, zy_base ? MPI_DOUBLE : t3, MPI_SUM, 0,
             MPI_COMM_WORLD);
  if (zy_rank == 0)
    for (int i = 0; i < 3; i++)
      l += w[i] * w[i];
  MPI_Scan(x, s, zy_base ? 6 : 2, zy_base ? MPI_DOUBLE : t3, MPI_SUM,
           MPI_COMM_WORLD);
  MPI_Scatter(all, 1, dup3, w, 1, t3, 0, MPI_COMM_WORLD);
  for (int i = 0; i < 3; i++)
    l += w[i] * s[i + 3] * (i + 2);
  MPI_Type_free(&t3);
  return global(l);
}

/* The collectives with counts per rank, on pairs: rank q sends q % 2 + 1
 * pairs. */
double vcolls(double *x, int n) {
  double v[N], all[8 * N], w[8 * N], l = 0;
  int cnt[8], dsp[8], at = 0;
  for (int q = 0; q < zy_size; q++)
    cnt[q] = q % 2 + 1, dsp[q] = at, at += cnt[q] + 1; /* a pair's gap */
  for (int i = 0; i < n; i++)
    v[i] = x[i] * (x[i] + zy_rank);
  int mine = zy_rank % 2 + 1, root = zy_size - 1;
  for (int i = 0; i < 2 * at; i++)
    all[i] = 0, w[i] = 0;
  MPI_Gatherv(v, mine, pair2, all, cnt, dsp, pair2, root, MPI_COMM_WORLD);
  if (zy_rank == root)
    for (int i = 0; i < 2 * at; i++)
      l += all[i] * all[i] * (i + 1);
  MPI_Scatterv(all, cnt, dsp, pair2, w, mine, pair2, root, MPI_COMM_WORLD);
  for (int i = 0; i < 2 * mine; i++)
    l += sin(w[i]) * x[i];
  MPI_Allgatherv(v, mine, pair2, all, cnt, dsp, pair2, MPI_COMM_WORLD);
  for (int i = 0; i < 2 * at; i++)
    l += all[i] * cos(0.3 * i);
  int sc[8], sd[8], rc[8], rd[8];
  for (int q = 0; q < zy_size; q++)
    sc[q] = 1, sd[q] = q % 3, rc[q] = 1, rd[q] = q;
  MPI_Alltoallv(v, sc, sd, pair2, w, rc, rd, pair2, MPI_COMM_WORLD);
  for (int i = 0; i < 2 * zy_size; i++)
    l += w[i] * w[i] * (i + 2);
  return global(l);
}

/* Allreduce MAX and PROD elementwise on pairs of doubles. */
double maxprod(double *x, int n) {
  double v[N], m[N], p[N], l = 0;
  for (int i = 0; i < n; i++)
    v[i] = sin(3 * x[i] + zy_rank);
  MPI_Datatype t = zy_base ? MPI_DOUBLE : pair2;
  int k = zy_base ? 2 : 1;
  MPI_Allreduce(v, m, n / 2 * k, t, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(x, p, n / 2 * k, t, MPI_PROD, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++)
    l += m[i] * (i + 1) + p[i];
  return l;
}

/* Floats: Allreduce MAX, Allgather and Bcast on pairs of floats. */
double floats(double *x, int n) {
  float f[N], g[2 * N]; /* gathered pairs (3 ranks at most), maxima */
  double l = 0;
  for (int i = 0; i < n; i++)
    f[i] = (float)(x[i] * (zy_rank + 1));
  MPI_Allreduce(f, g + n, zy_base ? n : n / 2, zy_base ? MPI_FLOAT : fpair2,
                MPI_MAX, MPI_COMM_WORLD);
  MPI_Allgather(f, 1, fpair2, g, 1, fpair2, MPI_COMM_WORLD);
  MPI_Bcast(f, 1, fpair2, 0, MPI_COMM_WORLD);
  for (int i = 0; i < 2 * zy_size; i++) /* the pairs gathered */
    l += (double)g[i] * g[i] * (i + 1);
  for (int i = 0; i < n; i++)
    l += (double)g[n + i] * g[n + i] * (i + 1) + (double)f[i] * (i + 1);
  return l;
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair2);
  MPI_Type_commit(&pair2);
  MPI_Type_contiguous(3, MPI_DOUBLE, &triple3);
  MPI_Type_commit(&triple3);
  MPI_Type_contiguous(2, pair2, &quad4);
  MPI_Type_commit(&quad4);
  MPI_Type_dup(triple3, &dup3);
  MPI_Type_contiguous(2, MPI_FLOAT, &fpair2);
  MPI_Type_commit(&fpair2);
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.2 * i + 0.17 * zy_rank;
  ZY_CHECK_GRAD("ring", ring, x, N, dx);
  ZY_CHECK_GRAD("steps", steps, x, N, dx);
  CHECK("colls", colls, x, N, dx);
  ZY_CHECK_GRAD("vcolls", vcolls, x, N, dx);
  CHECK("maxprod", maxprod, x, N, dx);
  /* MAX: the derivative goes to the rank that won each element. */
  for (int i = 0; i < N; i++) {
    int win = 0;
    for (int q = 1; q < zy_size; q++)
      if (sin(3 * (x[i] + 0.17 * (q - zy_rank)) + q) >
          sin(3 * (x[i] + 0.17 * (win - zy_rank)) + win))
        win = q;
    double others = 1;
    for (int q = 0; q < zy_size; q++)
      if (q != zy_rank)
        others *= x[i] - 0.17 * zy_rank + 0.17 * q;
    double want = zy_size * (others + (win == zy_rank
                                           ? 3 * cos(3 * x[i] + zy_rank) * (i + 1)
                                           : 0));
    zy_close("maxprod closed form", i, dx[i], want, 1e-9);
  }
  zy_fd_h = 1e-3, zy_fd_tol = 1e-3;
  CHECK("floats", floats, x, N, dx);
  zy_fd_h = 1e-6, zy_fd_tol = 1e-6;
  MPI_Type_free(&pair2);
  MPI_Type_free(&triple3);
  MPI_Type_free(&quad4);
  MPI_Type_free(&dup3);
  MPI_Type_free(&fpair2);
  return zy_mpi_finish();
}
