/* main.c - the driver of one benchmark executable (one workload, every
 * variant linked in): checks that the gradients agree, times the variants
 * side by side, or measures the peak memory of one of them.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *   bench-W check SIZE [--fd]           gradients against each other (and
 *                                       central differences with --fd)
 *   bench-W time SIZE [--fd] [--target S] [--min-reps N] [--max-reps N]
 *                                       check, then time; one JSON line
 *   (both also take --only TOOL,..., --tol T and --adolc-max-gb G)
 *   bench-W mem SIZE VARIANT            one evaluation; JSON line with
 *                                       the peak RSS of this process
 * SIZE is small, medium or large.  Human-readable lines go to stderr.
 * Built with -fopenmp (the -omp workloads), the JSON line also gives the
 * number of threads a parallel region gets (OMP_NUM_THREADS). */
#include "bench.h"
#include "zyreal.h"
#include ZYW_HEADER
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Enzyme's activity markers, referenced by the enzyme-abi objects. */
int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#pragma weak zyb_tool_zymase
#pragma weak zyb_tool_compare
#pragma weak zyb_tool_manual
#pragma weak zyb_tool_adolc
#pragma weak zyb_tool_adolc_reuse
#pragma weak zyb_adolc_tape_bytes

static const char *const size_names[3] = {"small", "medium", "large"};

typedef struct Variant {
  const char *name;
  const ZybTool *tool; /* null for the primal */
  double *g;
  const char *check; /* "ok", "ref", "disagree" or "nan" */
  double err;
  double median;
  int reps, batch;
} Variant;

typedef struct Bench {
  ZYW_DATA data;
  double *p;
  int np;
  double value;
  Variant v[6];
  int nv;
  char skipped[160]; /* why ADOL-C was left out, if it was */
} Bench;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static volatile double sink;

static void run_once(Bench *b, Variant *v) {
  if (v->tool)
    v->tool->grad(b->p, &b->data, v->g, b->np);
  else
    sink = zyb_primal(b->p, &b->data);
}

static double inf_norm(const double *g, int n) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (fabs(g[i]) > m)
      m = fabs(g[i]);
  return m;
}

/* only: comma-separated tool names to keep, or null for all */
static int wanted(const char *only, const char *name) {
  if (!only)
    return 1;
  size_t n = strlen(name);
  for (const char *s = only; (s = strstr(s, name)); s += n)
    if ((s == only || s[-1] == ',') && (s[n] == ',' || !s[n]))
      return 1;
  return 0;
}

static void setup(Bench *b, int size, const char *only) {
  /* the variants are named here, after the object they come from */
  static const char *const names[5] = {"zymase", "compare", "manual", "adolc",
                                       "adolc-reuse"};
  const ZybTool *tools[5] = {&zyb_tool_zymase, &zyb_tool_compare,
                             &zyb_tool_manual, &zyb_tool_adolc,
                             &zyb_tool_adolc_reuse};
  memset(b, 0, sizeof *b);
  b->np = ZYW_MAKE(size, &b->data, &b->p);
  b->v[b->nv++].name = "primal";
  for (int i = 0; i < 5; i++)
    if (tools[i] && wanted(only, names[i])) {
      Variant *v = &b->v[b->nv++];
      v->name = names[i];
      v->tool = tools[i];
      v->g = zy_alloc_doubles(b->np);
    }
}

/* ADOL-C keeps its whole tape in memory: at the large size, measure the
 * tape at the medium size, scale it by the workloads' work (ZYW_WORK), and
 * leave ADOL-C out if it would exceed max_gb, so a run cannot exhaust a
 * shared machine's memory. */
static void adolc_budget(Bench *b, int size, double max_gb) {
  if (size < 2 || max_gb <= 0 || !zyb_adolc_tape_bytes)
    return;
  int has = 0;
  for (int i = 1; i < b->nv; i++)
    has |= !strncmp(b->v[i].name, "adolc", 5);
  if (!has)
    return;
  ZYW_DATA d;
  double *p;
  int np = ZYW_MAKE(size - 1, &d, &p);
  double bytes = zyb_adolc_tape_bytes(p, &d, np);
  double est = bytes * ZYW_WORK(&b->data) / ZYW_WORK(&d) / 1e9;
  free(p);
  ZYW_FREE(&d);
  if (est <= max_gb)
    return;
  snprintf(b->skipped, sizeof b->skipped, "tape ~%.0f GB > --adolc-max-gb %g",
           est, max_gb);
  fprintf(stderr, "SKIP     %s adolc: %s\n", ZYW_NAME, b->skipped);
  int k = 1;
  for (int i = 1; i < b->nv; i++)
    if (strncmp(b->v[i].name, "adolc", 5))
      b->v[k++] = b->v[i];
    else
      free(b->v[i].g);
  b->nv = k;
}

/* Every gradient against the reference (hand-written if there is one,
 * else the first tool linked): |g - ref|_2 / |ref|_2, which tolerates the
 * rounding of long sums in large gradients but not a wrong entry of any
 * weight.  Returns the number of disagreeing tools. */
static int check_tools(Bench *b, double tol) {
  Variant *ref = 0;
  int bad = 0;
  for (int i = 1; i < b->nv; i++) {
    Variant *v = &b->v[i];
    run_once(b, v);
    if (!ref || !strcmp(v->name, "manual"))
      ref = v;
  }
  if (!ref)
    return 0;
  double norm = 0;
  for (int j = 0; j < b->np; j++)
    norm += ref->g[j] * ref->g[j];
  norm = norm > 0 ? sqrt(norm) : 1;
  for (int i = 1; i < b->nv; i++) {
    Variant *v = &b->v[i];
    double e = 0;
    for (int j = 0; j < b->np; j++)
      e += (v->g[j] - ref->g[j]) * (v->g[j] - ref->g[j]);
    v->err = sqrt(e) / norm;
    int fail = v->err != v->err || (v != ref && v->err > tol);
    v->check = v->err != v->err ? "nan"
               : v == ref       ? "ref"
               : fail           ? "disagree"
                                : "ok";
    bad += fail;
    if (v == ref)
      fprintf(stderr, "%-8s %s %s is the reference (|g|_2 = %.3g)\n",
              fail ? "FAIL" : "ok", ZYW_NAME, v->name, norm);
    else
      fprintf(stderr, "%-8s %s %s vs %s: relative error %.3g\n",
              fail ? "FAIL" : "ok", ZYW_NAME, v->name, ref->name, v->err);
  }
  return bad;
}

/* Central differences of the primal on up to 16 coordinates, against the
 * reference gradient. */
static int check_fd(Bench *b, int *checked, double *worst) {
  Variant *ref = 0;
  for (int i = 1; i < b->nv && !ref; i++)
    if (!strcmp(b->v[i].check, "ref"))
      ref = &b->v[i];
  *checked = 0;
  *worst = 0;
  if (!ref)
    return 0;
  int m = b->np < 16 ? b->np : 16, bad = 0;
  double *q = zy_alloc_doubles(b->np), gmax = inf_norm(ref->g, b->np);
  memcpy(q, b->p, sizeof(double) * b->np);
  for (int j = 0; j < m; j++) {
    int i = m == 1 ? 0 : (int)((long long)j * (b->np - 1) / (m - 1));
    double h = 1e-6 * (fabs(q[i]) > 1 ? fabs(q[i]) : 1);
    q[i] = b->p[i] + h;
    double fp = zyb_primal(q, &b->data);
    q[i] = b->p[i] - h;
    double fm = zyb_primal(q, &b->data);
    q[i] = b->p[i];
    double fd = (fp - fm) / (2 * h), g = ref->g[i];
    /* truncation ~h^2, rounding ~eps |f| / h */
    double tol =
        1e-5 * (fabs(g) + 1e-3 * gmax) + 1e-14 * (1 + fabs(b->value)) / h;
    double e = fabs(fd - g) / (fabs(g) + 1e-3 * gmax + 1e-300);
    if (e > *worst)
      *worst = e;
    if (!(fabs(fd - g) <= tol)) {
      bad++;
      fprintf(stderr,
              "FAIL     %s %s d/dp[%d]: %.12g, central difference %.12g\n",
              ZYW_NAME, ref->name, i, g, fd);
    }
    ++*checked;
  }
  fprintf(stderr,
          "%-8s %s %s vs central differences on %d coordinates: max relative "
          "error %.3g\n",
          bad ? "FAIL" : "ok", ZYW_NAME, ref->name, *checked, *worst);
  free(q);
  return bad;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Warm-up, then round-robin over the variants so that a noisy neighbour on
 * the machine hits all of them alike; each sample times a batch of calls
 * long enough (>= 1 ms) for the clock. */
/* Whether variant v belongs to the timing group: kept = 1 for the tools
 * that keep memory between gradients (release set), 0 for the others and
 * the primal. */
static int in_group(const Variant *v, int kept) {
  return (v->tool && v->tool->release) == kept;
}

static void release_all(Bench *b) {
  for (int i = 1; i < b->nv; i++)
    if (b->v[i].tool->release)
      b->v[i].tool->release();
}

/* Times one group of variants, interleaved (one repetition of each in
 * turn, so load that comes and goes hits all alike). */
static void time_group(Bench *b, int kept, double target, int min_reps,
                       int max_reps) {
  double *samples[6];
  int done[6] = {0}, left = 1;
  for (int i = 0; i < b->nv; i++) {
    Variant *v = &b->v[i];
    if (!in_group(v, kept) ||
        (v->tool && strcmp(v->check, "ok") && strcmp(v->check, "ref")))
      continue;
    double t0 = now();
    run_once(b, v);
    double t = now() - t0;
    v->batch = t >= 1e-3 ? 1 : (int)(1e-3 / (t > 1e-9 ? t : 1e-9)) + 1;
    double per = t * v->batch;
    v->reps = per > 0 ? (int)(target / per) : max_reps;
    v->reps = v->reps < min_reps   ? min_reps
              : v->reps > max_reps ? max_reps
                                   : v->reps;
    samples[i] = zy_alloc_doubles(v->reps);
  }
  while (left) {
    left = 0;
    for (int i = 0; i < b->nv; i++) {
      Variant *v = &b->v[i];
      if (!in_group(v, kept) || !v->reps || done[i] == v->reps)
        continue;
      double t0 = now();
      for (int k = 0; k < v->batch; k++)
        run_once(b, v);
      samples[i][done[i]++] = (now() - t0) / v->batch;
      left |= done[i] < v->reps;
    }
  }
  for (int i = 0; i < b->nv; i++) {
    Variant *v = &b->v[i];
    if (!in_group(v, kept) || !v->reps)
      continue;
    qsort(samples[i], v->reps, sizeof(double), cmp_double);
    v->median =
        v->reps % 2
            ? samples[i][v->reps / 2]
            : 0.5 * (samples[i][v->reps / 2 - 1] + samples[i][v->reps / 2]);
    free(samples[i]);
  }
}

/* The primal and the compilers' gradients first, with nothing else held,
 * then the tools that keep memory (ADOL-C), which are released after. */
static void time_all(Bench *b, double target, int min_reps, int max_reps) {
  release_all(b);
  time_group(b, 0, target, min_reps, max_reps);
  time_group(b, 1, target, min_reps, max_reps);
  release_all(b);
}

#ifdef _OPENMP
/* The number of threads a parallel region gets. */
static int region_threads(void) {
  int n = 1;
#pragma omp parallel
#pragma omp single
  n = omp_get_num_threads();
  return n;
}
#endif

static void print_json(Bench *b, int size, int fd_checked, double fd_err,
                       int fd_bad) {
  printf("{\"workload\": \"%s\", \"size\": \"%s\", \"desc\": \"%s\", "
         "\"np\": %d, \"value\": %.17g",
         ZYW_NAME, size_names[size], ZYW_SIZES[size], b->np, b->value);
#ifdef _OPENMP
  printf(", \"threads\": %d", region_threads());
#endif
  if (b->skipped[0])
    printf(", \"skipped\": {\"adolc\": \"%s\", \"adolc-reuse\": \"%s\"}",
           b->skipped, b->skipped);
  if (fd_checked)
    printf(", \"fd\": {\"coords\": %d, \"max_rel_err\": %.3g, \"ok\": %s}",
           fd_checked, fd_err, fd_bad ? "false" : "true");
  printf(", \"variants\": {");
  for (int i = 0; i < b->nv; i++) {
    Variant *v = &b->v[i];
    printf("%s\"%s\": {\"seconds\": %.9g, \"reps\": %d, \"batch\": %d",
           i ? ", " : "", v->name, v->reps ? v->median : -1.0, v->reps,
           v->batch);
    if (v->tool)
      printf(", \"check\": \"%s\", \"max_rel_err\": %.3g", v->check, v->err);
    printf("}");
  }
  printf("}}\n");
}

static int usage(void) {
  fprintf(stderr,
          "usage: bench-%s check|time SIZE [--fd] [--tol T] [--only TOOL,...] "
          "[--adolc-max-gb G] [--target S] [--min-reps N] [--max-reps N]\n     "
          "  bench-%s mem SIZE VARIANT\n",
          ZYW_NAME, ZYW_NAME);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  const char *mode = argv[1];
  int size = -1;
  for (int i = 0; i < 3; i++)
    if (!strcmp(argv[2], size_names[i]))
      size = i;
  if (size < 0)
    return usage();
  int fd = 0, min_reps = 3, max_reps = 100;
  double tol = 1e-8, target = 0.5, max_gb = 6;
  const char *only = 0;
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--fd"))
      fd = 1;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--adolc-max-gb") && i + 1 < argc)
      max_gb = atof(argv[++i]);
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--target") && i + 1 < argc)
      target = atof(argv[++i]);
    else if (!strcmp(argv[i], "--min-reps") && i + 1 < argc)
      min_reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-reps") && i + 1 < argc)
      max_reps = atoi(argv[++i]);
    else if (strcmp(mode, "mem"))
      return usage();
  }

  Bench b;
  setup(&b, size, only);
  if (!strcmp(mode, "mem")) {
    if (argc < 4)
      return usage();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long base = ru.ru_maxrss;
    Variant *v = 0;
    for (int i = 0; i < b.nv; i++)
      if (!strcmp(b.v[i].name, argv[3]))
        v = &b.v[i];
    if (!v) {
      fprintf(stderr, "bench-%s: no variant '%s' in this build\n", ZYW_NAME,
              argv[3]);
      return 2;
    }
    run_once(&b, v);
    getrusage(RUSAGE_SELF, &ru);
    printf("{\"workload\": \"%s\", \"size\": \"%s\", \"variant\": \"%s\", "
           "\"maxrss_kb\": %ld, \"inputs_kb\": %ld}\n",
           ZYW_NAME, size_names[size], v->name, ru.ru_maxrss, base);
    return 0;
  }
  if (strcmp(mode, "check") && strcmp(mode, "time"))
    return usage();

  fprintf(stderr, "%s %s (%s): %d parameters\n", ZYW_NAME, size_names[size],
          ZYW_SIZES[size], b.np);
  b.value = zyb_primal(b.p, &b.data);
  adolc_budget(&b, size, max_gb);
  int bad = check_tools(&b, tol), fd_checked = 0, fd_bad = 0;
  double fd_err = 0;
  if (fd)
    fd_bad = check_fd(&b, &fd_checked, &fd_err);
  if (!strcmp(mode, "time"))
    time_all(&b, target, min_reps, max_reps);
  print_json(&b, size, fd_checked, fd_err, fd_bad);
  for (int i = 1; i < b.nv; i++)
    free(b.v[i].g);
  free(b.p);
  ZYW_FREE(&b.data);
  return bad || fd_bad;
}
