// A receive of the program from MPI_ANY_SOURCE with MPI_ANY_TAG (and one
// from rank 1 with MPI_ANY_TAG) kept pending on rank 0 across a gradient
// whose reverse sends rank 0 an adjoint message: the adjoint messages
// travel on a duplicate of the communicator (made once, kept as an
// attribute of it, freed with it), so the program's receive gets the
// program's message, sent after the gradient with the same tag, and the
// gradient its adjoint.  Before, the pending receive took the adjoint and
// the reverse took the program's message: rank 0's gradient was the
// token ({42, 43, 44}) and the token the adjoint.  On MPI_COMM_WORLD, then on
// communicators the program duplicates and frees in turn (a freed one's
// duplicate goes with it; a new one gets its own), on 2 and 3 ranks, Open
// MPI and MPICH; gradients against closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0 && %mpirun 2 %t0 && %mpirun 3 %t0
// RUN: %clang -O2 %s %mpi-flags -lm -o %t2 && %mpirun 2 %t2 && %mpirun 3 %t2
// RUN: %if mpich %{ %clang -O0 %s %mpich-flags -lm -o %t4 && %mpichrun 2 %t4 && %mpichrun 3 %t4 %}
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 && %mpichrun 2 %t5 && %mpichrun 3 %t5 %}
#include "mpi_check.h"

enum { N = 3, TOKEN_TAG = 0 };

static MPI_Comm comm; /* the communicator chain() uses */

/* A chain: rank r receives from r - 1 (none on rank 0), adds sin x and
 * sends the sum to r + 1 (none on the last rank), tag 0; each rank's loss
 * is sum_i (i + 1) x_i y_i with y what it received (0 on rank 0), summed
 * over the ranks.  Rank 0 receives nothing in the forward pass, and its
 * reverse receives the adjoint of what it sent. */
double chain(double *x, int n) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double y[N] = {0}, s[N];
  if (rank > 0)
    MPI_Recv(y, n, MPI_DOUBLE, rank - 1, 0, comm, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    s[i] = y[i] + sin(x[i]);
  if (rank + 1 < size)
    MPI_Send(s, n, MPI_DOUBLE, rank + 1, 0, comm);
  double l = 0, all;
  for (int i = 0; i < n; i++)
    l += (i + 1) * x[i] * y[i];
  MPI_Allreduce(&l, &all, 1, MPI_DOUBLE, MPI_SUM, comm);
  return zy_rank == 0 ? all : 0;
}

/* d/dx_j of the sum over ranks: rank r's own term (j + 1) y_j, and, for
 * r + 1 < size, what its x_j adds downstream: s_j reaches every later rank
 * q, whose term is (j + 1) x_j(q) y_j(q), y_j(q) = sum_{p<q} sin x_j(p). */
static double chain_closed(const double *x_all, int r, int j, int size) {
  double y = 0, d = 0;
  for (int p = 0; p < r; p++)
    y += sin(x_all[p * N + j]);
  d = (j + 1) * y;
  for (int q = r + 1; q < size; q++)
    d += (j + 1) * x_all[q * N + j] * cos(x_all[r * N + j]);
  return d;
}

/* Rank 0 posts a receive of N doubles (from `source`, any tag), every
 * rank takes the gradient, then rank 1 sends the token with tag 0 and
 * rank 0 checks that its receive got it, from rank 1. */
static void run(const char *what, int source) {
  double x0[N], x_all[64], dx[N], token[N] = {-1, -1, -1};
  for (int i = 0; i < N; i++)
    x0[i] = 0.3 + 0.2 * i + 0.1 * zy_rank;
  MPI_Allgather(x0, N, MPI_DOUBLE, x_all, N, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Request req = MPI_REQUEST_NULL;
  if (zy_rank == 0)
    MPI_Irecv(token, N, MPI_DOUBLE, source, MPI_ANY_TAG, comm, &req);
  double x[N];
  memcpy(x, x0, sizeof x);
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, N);
  if (zy_rank == 1) {
    double t[N] = {42, 43, 44};
    MPI_Send(t, N, MPI_DOUBLE, 0, TOKEN_TAG, comm);
  }
  if (zy_rank == 0) {
    MPI_Status st;
    MPI_Wait(&req, &st);
    for (int i = 0; i < N; i++)
      zy_close("token", i, token[i], 42 + i, 0);
    zy_close("token source", 0, st.MPI_SOURCE, 1, 0);
    zy_close("token tag", 0, st.MPI_TAG, TOKEN_TAG, 0);
  }
  char label[80];
  snprintf(label, sizeof label, "%s closed form", what);
  for (int j = 0; j < N; j++)
    zy_close(label, j, dx[j], chain_closed(x_all, zy_rank, j, zy_size), 1e-12);
  snprintf(label, sizeof label, "%s finite differences", what);
  zy_fd_compare(label, chain, x0, N, dx);
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  comm = MPI_COMM_WORLD;
  run("world, any source", MPI_ANY_SOURCE);
  run("world, rank 1", 1);
  for (int k = 0; k < 3; k++) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    run("duplicate, any source", MPI_ANY_SOURCE);
    run("duplicate, rank 1", 1);
    MPI_Comm_free(&comm);
  }
  comm = MPI_COMM_WORLD;
  run("world again", MPI_ANY_SOURCE);
  return zy_mpi_finish();
}
