/* main.c - the driver of one Hessian-vector-product benchmark (one
 * workload, each plugin's tools linked in): checks each tool's product,
 * then times the primal, each gradient and each product side by side.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *   hvp-W SIZE [--target S] [--check-only]
 *                             checks, then times (not with --check-only);
 *                             one JSON line on stdout
 *
 * SIZE is small, medium or large.  Checks: the product's gradient equals
 * the tool's plain gradient; H v against central differences of the
 * gradient along v; the symmetry w.(H v) = v.(H w) for a second vector w;
 * the tools against each other.  Human-readable lines go to stderr. */
#include "bench.h"
#include "hvp.h"
#include "zyreal.h"
#include ZYW_HEADER
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Enzyme's activity markers, referenced by the plugins' objects. */
int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#pragma weak zyh_tool_zymase
#pragma weak zyh_tool_compare

typedef struct Run {
  ZYW_DATA data;
  double *p, *v, *w, *g, *g2, *hv, *hw;
  int np;
} Run;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* |a - b|_2 / max(|b|_2, tiny) */
static double rel(const double *a, const double *b, int n) {
  double e = 0, nb = 0;
  for (int i = 0; i < n; i++)
    e += (a[i] - b[i]) * (a[i] - b[i]), nb += b[i] * b[i];
  return sqrt(e) / (nb > 0 ? sqrt(nb) : 1e-300);
}

/* The checks of one tool at p + w / 1000 (a generated point may sit on a
 * branch's boundary, as BA's cameras with a zero rotation do, where the
 * product, exact for the branch taken, differs from differences taken
 * across it); hv is left holding H v at p.  Returns the number of failed
 * checks. */
static int check(Run *r, const ZyhTool *t, double *err_fd) {
  int n = r->np, bad = 0;
  /* the rounding of sums over n terms: tolerances grow past 1e5 of them */
  double grow = n > 100000 ? n / 1e5 : 1, tol_fd = 1e-6 * grow,
         tol_sym = 1e-9 * grow;
  double *q = zy_alloc_doubles(n), *gp = zy_alloc_doubles(n),
         *gm = zy_alloc_doubles(n), *p = zy_alloc_doubles(n), pmax = 0;
  for (int i = 0; i < n; i++)
    p[i] = r->p[i] + 1e-3 * r->w[i];
  t->grad(p, &r->data, r->g2, n);
  t->hvp(p, r->v, &r->data, r->g, r->hv, n);
  double eg = rel(r->g, r->g2, n);
  bad += !(eg <= 1e-12);
  fprintf(stderr, "%-8s %s %s: gradient of the product vs gradient %.3g\n",
          eg <= 1e-12 ? "ok" : "FAIL", ZYW_NAME, t->name, eg);
  for (int i = 0; i < n; i++)
    pmax += p[i] * p[i];
  /* Central differences at steps h and h/2, combined by Richardson's
   * extrapolation (error O(h^4)); h from the parameters' root mean
   * square (|v|_inf <= 1). */
  double h = 1e-4 * (1 + sqrt(pmax / n));
  double *d1 = zy_alloc_doubles(n);
  for (int pass = 0; pass < 2; pass++, h /= 2) {
    for (int i = 0; i < n; i++)
      q[i] = p[i] + h * r->v[i];
    t->grad(q, &r->data, gp, n);
    for (int i = 0; i < n; i++)
      q[i] = p[i] - h * r->v[i];
    t->grad(q, &r->data, gm, n);
    for (int i = 0; i < n; i++)
      gp[i] = (gp[i] - gm[i]) / (2 * h);
    if (pass == 0)
      memcpy(d1, gp, sizeof(double) * n);
  }
  for (int i = 0; i < n; i++)
    gp[i] = (4 * gp[i] - d1[i]) / 3;
  free(d1);
  *err_fd = rel(r->hv, gp, n);
  bad += !(*err_fd <= tol_fd);
  fprintf(stderr, "%-8s %s %s: H v vs central differences %.3g\n",
          *err_fd <= tol_fd ? "ok" : "FAIL", ZYW_NAME, t->name, *err_fd);
  t->hvp(p, r->w, &r->data, r->g2, r->hw, n);
  double a = dot(r->w, r->hv, n), b = dot(r->v, r->hw, n);
  double es = fabs(a - b) / fmax(fmax(fabs(a), fabs(b)), 1e-300);
  bad += !(es <= tol_sym);
  fprintf(stderr, "%-8s %s %s: w.(H v) = %.12g, v.(H w) = %.12g\n",
          es <= tol_sym ? "ok" : "FAIL", ZYW_NAME, t->name, a, b);
  t->hvp(r->p, r->v, &r->data, r->g, r->hv, n);
  free(q), free(gp), free(gm), free(p);
  return bad;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median time of what (0 primal, 1 gradient, 2 product) over at least
 * 3 repetitions and about target seconds. */
static double timed(Run *r, const ZyhTool *t, int what, double target) {
  static double ts[1000];
  static volatile double sink;
  int k = 0;
  double start = now();
  while (k < 1000 && (k < 3 || now() - start < target)) {
    double t0 = now();
    if (what == 0)
      sink = zyb_primal(r->p, &r->data);
    else if (what == 1)
      t->grad(r->p, &r->data, r->g, r->np);
    else
      t->hvp(r->p, r->v, &r->data, r->g, r->hv, r->np);
    ts[k++] = now() - t0;
  }
  qsort(ts, k, sizeof *ts, cmp);
  return ts[k / 2];
}

int main(int argc, char **argv) {
  static const char *const sizes[3] = {"small", "medium", "large"};
  int size = -1, check_only = 0;
  double target = 1.0;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--target") && i + 1 < argc)
      target = atof(argv[++i]);
    else if (!strcmp(argv[i], "--check-only"))
      check_only = 1;
    else
      for (int s = 0; s < 3; s++)
        size = strcmp(argv[i], sizes[s]) ? size : s;
  if (size < 0) {
    fprintf(stderr, "usage: %s small|medium|large [--target S] [--check-only]\n",
            argv[0]);
    return 2;
  }
  const ZyhTool *tools[2] = {&zyh_tool_zymase, &zyh_tool_compare};
  Run r;
  r.np = ZYW_MAKE(size, &r.data, &r.p);
  int n = r.np, bad = 0;
  double *bufs[6];
  for (int i = 0; i < 6; i++)
    bufs[i] = zy_alloc_doubles(n);
  r.v = bufs[0], r.w = bufs[1], r.g = bufs[2], r.g2 = bufs[3];
  r.hv = bufs[4], r.hw = bufs[5];
  ZyRng rng = {7};
  for (int i = 0; i < n; i++)
    r.v[i] = zy_rng_uniform(&rng, -1, 1), r.w[i] = zy_rng_uniform(&rng, -1, 1);
  double *ref = NULL, err[2] = {0, 0};
  int failed[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    if (!tools[k])
      continue;
    failed[k] = check(&r, tools[k], &err[k]);
    if (!ref) {
      ref = zy_alloc_doubles(n);
      memcpy(ref, r.hv, sizeof(double) * n);
    } else {
      double e = rel(r.hv, ref, n);
      failed[k] += !(e <= 1e-8);
      fprintf(stderr, "%-8s %s %s vs %s: H v relative error %.3g\n",
              e <= 1e-8 ? "ok" : "FAIL", ZYW_NAME, tools[k]->name,
              tools[0]->name, e);
    }
    bad += failed[k];
  }
  if (check_only) {
    printf("{\"workload\": \"%s\", \"size\": \"%s\", \"n\": %d,"
           " \"failed_checks\": %d}\n", ZYW_NAME, sizes[size], n, bad);
    return bad != 0;
  }
  double primal = timed(&r, NULL, 0, target);
  printf("{\"workload\": \"%s\", \"size\": \"%s\", \"n\": %d, \"primal\": %.6g,"
         " \"failed_checks\": %d, \"tools\": {",
         ZYW_NAME, sizes[size], n, primal, bad);
  const char *sep = "";
  for (int k = 0; k < 2; k++) {
    if (!tools[k])
      continue;
    double g = timed(&r, tools[k], 1, target);
    double h = timed(&r, tools[k], 2, target);
    fprintf(stderr, "time     %s %s: primal %.4g s, gradient %.4g s, H v %.4g s"
            " (H v / gradient %.2f)\n", ZYW_NAME, tools[k]->name, primal, g,
            h, h / g);
    printf("%s\"%s\": {\"grad\": %.6g, \"hvp\": %.6g, \"err_fd\": %.3g,"
           " \"failed_checks\": %d}", sep, tools[k]->name, g, h, err[k],
           failed[k]);
    sep = ", ";
  }
  printf("}}\n");
  return bad != 0;
}
