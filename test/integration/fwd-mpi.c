// Forward mode through MPI: the tangent of each function (every rank
// passes its own direction v; the tangent of the sum over ranks is the sum
// of the ranks' tangents) through blocking and nonblocking point to point
// (MPI_Send/Recv, Isend/Irecv with Wait and Waitall, receives from
// MPI_ANY_SOURCE with MPI_ANY_TAG), a halo exchange (Sendrecv,
// MPI_PROC_NULL at the ends), Bcast (also of a contiguous datatype), Allreduce
// (SUM, MAX, PROD), Reduce (SUM, MIN), Gather, Scatter, Allgather, Alltoall
// and their v variants,
// checked against central differences of the whole parallel program, against
// dot(grad, v) from __enzyme_autodiff, and the primal against the function
// called apart; vector mode (two directions) against two scalar tangents.  The
// Hessian of an MPI_Allreduce, forward over reverse: __enzyme_fwddiff of
// a function calling __enzyme_autodiff gives H v, checked against a
// closed form and against central differences of the gradient.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0 && %mpirun 2 %t0 && %mpirun 3 %t0
// RUN: %clang -O2 %s %mpi-flags -lm -o %t2 && %mpirun 2 %t2 && %mpirun 3 %t2
// RUN: %if mpich %{ %clang -O0 %s %mpich-flags -lm -o %t4 && %mpichrun 2 %t4 %}
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 && %mpichrun 2 %t5 %}
#include "mpi_check.h"

#include <stdlib.h>

enum { N = 5, STEPS = 20 };

typedef struct {
  double y, dy;
} Dual;
typedef struct {
  double d[2];
} Tangents2;
extern int enzyme_primal_return, enzyme_width;
void __enzyme_fwddiff_void(void *, ...);
Dual __enzyme_fwddiff_primal(void *, ...);
Tangents2 __enzyme_fwddiff_w2(void *, ...);

static int left(void) { return zy_rank ? zy_rank - 1 : MPI_PROC_NULL; }
static int right(void) {
  return zy_rank + 1 < zy_size ? zy_rank + 1 : MPI_PROC_NULL;
}

/* A ring with blocking MPI_Send/MPI_Recv (even ranks send first). */
double ring_blocking(double *x, int n) {
  double in[N], out[N];
  int to = (zy_rank + 1) % zy_size, from = (zy_rank + zy_size - 1) % zy_size;
  for (int i = 0; i < n; i++)
    out[i] = x[i] * x[i] + 0.5 * x[i];
  if (zy_rank % 2 == 0) {
    MPI_Send(out, n, MPI_DOUBLE, to, 7, MPI_COMM_WORLD);
    MPI_Recv(in, n, MPI_DOUBLE, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(in, n, MPI_DOUBLE, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(out, n, MPI_DOUBLE, to, 7, MPI_COMM_WORLD);
  }
  double l = 0;
  for (int i = 0; i < n; i++)
    l += sin(in[i]) * x[i] + in[i] * in[i];
  return l;
}

/* Neighbours with MPI_Irecv/MPI_Isend: Waitall for one pair, Wait for
 * the other. */
double neighbours_nonblocking(double *x, int n) {
  double fromleft[N], fromright[N], a[N], b[N];
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * x[i];
    b[i] = cos(x[i]);
  }
  MPI_Request r[4];
  MPI_Irecv(fromleft, n, MPI_DOUBLE, left(), 1, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(fromright, n, MPI_DOUBLE, right(), 2, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(a, n, MPI_DOUBLE, right(), 1, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(b, n, MPI_DOUBLE, left(), 2, MPI_COMM_WORLD, &r[3]);
  MPI_Waitall(2, &r[2], MPI_STATUSES_IGNORE);
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += (zy_rank ? fromleft[i] * x[i] : 0) +
         (right() != MPI_PROC_NULL ? fromright[i] * fromright[i] : 0);
  return l;
}

/* Rank 0 receives from every other rank with MPI_ANY_SOURCE and
 * MPI_ANY_TAG (blocking, then nonblocking), and weighs what it got by the
 * source and tag the status names (either loop may get either message of
 * a rank: the loss does not depend on which; the barrier keeps the
 * messages of the next call out). */
double wildcard(double *x, int n) {
  double l = 0, buf[N], mine[N];
  for (int i = 0; i < n; i++)
    mine[i] = x[i] * (1 + zy_rank) + x[i] * x[i];
  if (zy_rank == 0) {
    for (int k = 1; k < zy_size; k++) {
      MPI_Status st;
      MPI_Recv(buf, n, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               &st);
      for (int i = 0; i < n; i++)
        l += (st.MPI_SOURCE + 0.05 * st.MPI_TAG) *
             (buf[i] * buf[i] + sin(buf[i]));
    }
    for (int k = 1; k < zy_size; k++) {
      MPI_Status st;
      MPI_Request r;
      MPI_Irecv(buf, n, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                &r);
      MPI_Wait(&r, &st);
      for (int i = 0; i < n; i++)
        l += (st.MPI_SOURCE + 0.05 * st.MPI_TAG) *
             (buf[i] * buf[i] + sin(buf[i]));
    }
  } else {
    MPI_Send(mine, n, MPI_DOUBLE, 0, 10 + zy_rank, MPI_COMM_WORLD);
    MPI_Request r;
    MPI_Isend(mine, n, MPI_DOUBLE, 0, 20 + zy_rank, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < n; i++)
    l += 0.1 * x[i] * x[i] * x[i];
  /* no rank starts the next call while rank 0 still receives this one's */
  MPI_Barrier(MPI_COMM_WORLD);
  return l;
}

/* A 1-D heat equation with a cubic sink: the halos exchanged with
 * MPI_Sendrecv every step, MPI_PROC_NULL at the ends. */
double halo(double *x, int n) {
  double u[N + 2], v[N + 2];
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  for (int t = 0; t < STEPS; t++) {
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right(), 0, &u[0], 1, MPI_DOUBLE, left(),
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left(), 1, &u[n + 1], 1, MPI_DOUBLE,
                 right(), 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 1; i <= n; i++)
      v[i] = u[i] + 0.3 * (u[i - 1] - 2 * u[i] + u[i + 1]) -
             0.05 * u[i] * u[i] * u[i];
    for (int i = 1; i <= n; i++)
      u[i] = v[i];
  }
  double l = 0;
  for (int i = 1; i <= n; i++)
    l += u[i] * u[i] * (1 + 0.1 * i);
  return l;
}

/* Bcast from the last rank, then a product with the local values. */
double bcast(double *x, int n) {
  double b[N];
  for (int i = 0; i < n; i++)
    b[i] = exp(0.3 * x[i]);
  MPI_Bcast(b, n, MPI_DOUBLE, zy_size - 1, MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += b[i] * b[i] * x[i];
  return l;
}

/* Bcast of a contiguous datatype of two doubles made outside (the count
 * becomes one of doubles, as for gradients). */
static MPI_Datatype pair2;
double bcast_pairs(double *x, int n) {
  double b[4];
  for (int i = 0; i < 4; i++)
    b[i] = x[i] * x[i + 1];
  MPI_Bcast(b, 2, pair2, 0, MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < 4; i++)
    l += sin(b[i]) * x[i];
  return l;
}

/* Allreduce with MPI_SUM, MPI_MAX and MPI_PROD (one element in place). */
double allreduce(double *x, int n) {
  double sq[N], s[N], mx[N], pr[N];
  for (int i = 0; i < n; i++) {
    sq[i] = x[i] * x[i];
    pr[i] = 1 + 0.5 * x[i];
  }
  MPI_Allreduce(sq, s, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(x, mx, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, pr, n, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += s[i] * x[i] + mx[i] * mx[i] * (1 + i) + pr[i] * x[i];
  return l;
}

/* Reduce with MPI_SUM to the last rank and MPI_MIN to rank 0. */
double reduce(double *x, int n) {
  double y[N], s[N] = {0}, mn[N] = {0};
  for (int i = 0; i < n; i++)
    y[i] = sin(x[i]) + x[i];
  MPI_Reduce(y, s, n, MPI_DOUBLE, MPI_SUM, zy_size - 1, MPI_COMM_WORLD);
  MPI_Reduce(x, mn, n, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += s[i] * s[i] + 3 * mn[i] * mn[i];
  return l;
}

/* Gather to rank 0, Scatter back from it, Allgather and Alltoall. */
double gather_family(double *x, int n) {
  double y[N], all[4 * N], back[N], ag[4 * N], sent[4], got[4];
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i] + 1;
  MPI_Gather(y, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (zy_rank == 0)
    for (int k = 0; k < n * zy_size; k++)
      all[k] = all[k] * (1 + 0.1 * k);
  MPI_Scatter(all, n, MPI_DOUBLE, back, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allgather(x, n, MPI_DOUBLE, ag, n, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int k = 0; k < zy_size; k++)
    sent[k] = x[k % n] * (k + 1);
  MPI_Alltoall(sent, 1, MPI_DOUBLE, got, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += back[i] * x[i];
  for (int k = 0; k < n * zy_size; k++)
    l += ag[k] * ag[k] * (k + 1) * 0.01;
  for (int k = 0; k < zy_size; k++)
    l += got[k] * got[k];
  return l;
}

/* Gatherv to rank 0 (rank q sends q + 1 values, at displacements with
 * gaps), Scatterv back, Allgatherv, Alltoallv, and Allgatherv and
 * Scatterv of constants, which have no tangent (zeros travel). */
static const double cs[4] = {1.5, 2.5, 3.5, 4.5},
                    cbig[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
double vcollectives(double *x, int n) {
  int counts[4], displs[4], ones[4], at[4], mine = zy_rank + 1;
  for (int q = 0; q < zy_size; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q;
    ones[q] = 1;
    at[q] = q;
  }
  double y[N], all[32] = {0}, back[N] = {0}, ag[32] = {0}, ci[32] = {0};
  double sent[4], got[4], cr[N];
  for (int i = 0; i < mine; i++)
    y[i] = x[i] * x[i] + x[i + 1];
  MPI_Gatherv(y, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  if (zy_rank == 0)
    for (int k = 0; k < 16; k++)
      all[k] = all[k] * (1 + 0.1 * k);
  MPI_Scatterv(all, counts, displs, MPI_DOUBLE, back, mine, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
  MPI_Allgatherv(y, mine, MPI_DOUBLE, ag, counts, displs, MPI_DOUBLE,
                 MPI_COMM_WORLD);
  MPI_Allgatherv((void *)cs, mine, MPI_DOUBLE, ci, counts, displs, MPI_DOUBLE,
                 MPI_COMM_WORLD);
  MPI_Scatterv((void *)cbig, counts, displs, MPI_DOUBLE, cr, mine, MPI_DOUBLE,
               0, MPI_COMM_WORLD);
  for (int q = 0; q < zy_size; q++)
    sent[q] = x[q] * (q + 2);
  MPI_Alltoallv(sent, ones, at, MPI_DOUBLE, got, ones, at, MPI_DOUBLE,
                MPI_COMM_WORLD);
  double l = 0;
  for (int i = 0; i < mine; i++)
    l += back[i] * x[i] + cr[i] * x[i] * x[i];
  for (int k = 0; k < 16; k++)
    l += ag[k] * ag[k] * (k + 1) * 0.01 + ci[k] * x[0];
  for (int q = 0; q < zy_size; q++)
    l += got[q] * got[q] * x[0];
  return l;
}

typedef struct {
  const char *name;
  zy_loss f;
  Dual (*tangent)(double *, double *, int);
  Tangents2 (*tangents2)(double *, double *, double *, int);
  void (*gradient)(double *, double *, int);
} Case;

/* The calls of the ABI, one set per function (f must be a name). */
#define ZY_CASE(f)                                                             \
  static Dual f##_tangent(double *x, double *v, int n) {                       \
    return __enzyme_fwddiff_primal((void *)f, enzyme_primal_return, x, v,      \
                                   enzyme_const, n);                           \
  }                                                                            \
  static void f##_gradient(double *x, double *dx, int n) {                     \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);          \
  }
#define ZY_VECTOR_CASE(f)                                                      \
  ZY_CASE(f)                                                                   \
  static Tangents2 f##_tangents2(double *x, double *v, double *w, int n) {     \
    return __enzyme_fwddiff_w2((void *)f, enzyme_width, 2, enzyme_dup, x, v,   \
                               w, enzyme_const, n);                            \
  }
ZY_VECTOR_CASE(ring_blocking)
ZY_VECTOR_CASE(neighbours_nonblocking)
ZY_VECTOR_CASE(wildcard)
ZY_VECTOR_CASE(halo)
ZY_VECTOR_CASE(bcast)
/* Not in vector mode: Open MPI's datatype is a pointer, and vector mode
 * refuses a global pointer that may have a shadow. */
ZY_CASE(bcast_pairs)
ZY_VECTOR_CASE(allreduce)
ZY_VECTOR_CASE(reduce)
ZY_VECTOR_CASE(gather_family)
ZY_VECTOR_CASE(vcollectives)
#define ZY_ENTRY(f) {#f, f, f##_tangent, f##_tangents2, f##_gradient}

static double dot_ranks(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return zy_sum_ranks(s);
}

static void check_case(const Case *c, const double *x0, const double *v,
                       const double *w) {
  double x[N], xp[N], dx[N] = {0}, vv[N], ww[N];
  const double h = 1e-6;
  memcpy(x, x0, sizeof x);
  memcpy(vv, v, sizeof vv);
  Dual d = c->tangent(x, vv, N);
  double t = zy_sum_ranks(d.dy);
  char what[96];
  snprintf(what, sizeof what, "%s: primal", c->name);
  zy_close(what, 0, d.y, c->f(x, N), 1e-13);
  for (int i = 0; i < N; i++)
    xp[i] = x0[i] + h * v[i];
  double fp = zy_sum_ranks(c->f(xp, N));
  for (int i = 0; i < N; i++)
    xp[i] = x0[i] - h * v[i];
  double fm = zy_sum_ranks(c->f(xp, N));
  snprintf(what, sizeof what, "%s: tangent vs central differences", c->name);
  zy_close(what, 0, t, (fp - fm) / (2 * h), 1e-6);
  c->gradient(x, dx, N);
  snprintf(what, sizeof what, "%s: tangent vs dot(grad, v)", c->name);
  zy_close(what, 0, t, dot_ranks(dx, v, N), 1e-11);
  if (!c->tangents2)
    return;
  memcpy(ww, w, sizeof ww);
  Tangents2 t2 = c->tangents2(x, vv, ww, N);
  Dual dw = c->tangent(x, ww, N);
  snprintf(what, sizeof what, "%s: vector mode", c->name);
  zy_close(what, 0, t2.d[0], d.dy, 1e-12);
  zy_close(what, 1, t2.d[1], dw.dy, 1e-12);
}

/* --- The Hessian of an MPI_Allreduce, forward over reverse ------------- */

/* Every rank returns S^2 / size with S the sum over all ranks of x_k^2:
 * the sum over ranks is S^2, whose gradient is 4 S x and whose Hessian
 * times v is 8 x (x . v) + 4 S v (dot products over all ranks). */
double energy_sum(double *x, int n) {
  double s = 0, S;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  MPI_Allreduce(&s, &S, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return S * S / zy_size;
}

/* With MPI_MAX too, and a local term. */
double energy_mix(double *x, int n) {
  double s = 0, S, m = -1e300, M, l = 0;
  for (int i = 0; i < n; i++) {
    s += sin(x[i]) * x[i];
    m = x[i] > m ? x[i] : m;
    l += exp(0.2 * x[i]) * x[i];
  }
  MPI_Allreduce(&s, &S, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&m, &M, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return S * S * S / zy_size + M * M * M / zy_size + l * S;
}

void grad_sum(double *x, double *g, int n) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  __enzyme_autodiff((void *)energy_sum, enzyme_dup, x, g, enzyme_const, n);
}

void grad_mix(double *x, double *g, int n) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  __enzyme_autodiff((void *)energy_mix, enzyme_dup, x, g, enzyme_const, n);
}

typedef void (*zy_grad)(double *, double *, int);

static void hvp_fd(zy_grad grad, const double *x0, const double *v,
                   double *want) {
  double xp[N], gp[N], gm[N];
  const double h = 1e-5;
  for (int i = 0; i < N; i++)
    xp[i] = x0[i] + h * v[i];
  grad(xp, gp, N);
  for (int i = 0; i < N; i++)
    xp[i] = x0[i] - h * v[i];
  grad(xp, gm, N);
  for (int i = 0; i < N; i++)
    want[i] = (gp[i] - gm[i]) / (2 * h);
}

static void check_hessian(const double *x0, const double *v) {
  double x[N], vv[N], g[N], hv[N], want[N], g0[N];
  memcpy(x, x0, sizeof x);
  memcpy(vv, v, sizeof vv);
  __enzyme_fwddiff_void((void *)grad_sum, enzyme_dup, x, vv, enzyme_dup, g, hv,
                        enzyme_const, N);
  double S = dot_ranks(x0, x0, N), xv = dot_ranks(x0, v, N);
  for (int i = 0; i < N; i++) {
    zy_close("energy_sum: gradient", i, g[i], 4 * S * x0[i], 1e-12);
    zy_close("energy_sum: H v closed form", i, hv[i],
             8 * x0[i] * xv + 4 * S * v[i], 1e-10);
  }
  hvp_fd(grad_sum, x0, v, want);
  for (int i = 0; i < N; i++)
    zy_close("energy_sum: H v vs differences of the gradient", i, hv[i],
             want[i], 1e-6);
  __enzyme_fwddiff_void((void *)grad_mix, enzyme_dup, x, vv, enzyme_dup, g, hv,
                        enzyme_const, N);
  grad_mix(x, g0, N);
  hvp_fd(grad_mix, x0, v, want);
  for (int i = 0; i < N; i++) {
    zy_close("energy_mix: gradient", i, g[i], g0[i], 1e-12);
    zy_close("energy_mix: H v vs differences of the gradient", i, hv[i],
             want[i], 1e-6);
  }
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  if (zy_size > 4) { /* the buffers below hold up to 4 ranks' data */
    if (zy_rank == 0)
      printf("FAIL: run with 2 to 4 ranks\n");
    MPI_Finalize();
    return 1;
  }
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair2);
  MPI_Type_commit(&pair2);
  double x[N], v[N], w[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.6 + 0.35 * sin(1.7 * i + 2.3 * zy_rank);
    v[i] = cos(0.9 * i + 1.3 * zy_rank);
    w[i] = 0.5 - 0.1 * i + 0.2 * zy_rank;
  }
  const Case cases[] = {ZY_ENTRY(ring_blocking),
                        ZY_ENTRY(neighbours_nonblocking),
                        ZY_ENTRY(wildcard),
                        ZY_ENTRY(halo),
                        ZY_ENTRY(bcast),
                        {"bcast_pairs", bcast_pairs, bcast_pairs_tangent, NULL,
                         bcast_pairs_gradient},
                        ZY_ENTRY(allreduce),
                        ZY_ENTRY(reduce),
                        ZY_ENTRY(gather_family),
                        ZY_ENTRY(vcollectives)};
  for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++)
    check_case(&cases[k], x, v, w);
  check_hessian(x, v);
  return zy_mpi_finish();
}
