// adolc.cpp - the gradient through ADOL-C: the same objective source on
// adouble, recorded on a tape and swept in reverse by gradient().  "adolc"
// records a new tape on every call (the cost of a gradient at a new point);
// "adolc-reuse" records once per point and then only runs gradient().
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <adolc/adolc.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#define ZY_ADOLC
#include "bench.h"
#include "zyreal.h"
#include ZYW_HEADER

// Tape buffers, in elements: large enough to keep tapes in memory (ADOL-C
// writes tapes that outgrow them to files in the working directory).  The
// buffers are allocated but only touched as the tape grows.
static unsigned buffer_size() {
  const char *s = getenv("ZYB_ADOLC_BUF");
  return s ? (unsigned)strtoul(s, 0, 0) : 1u << 30;
}

static void record(short tag, const double *p, const ZYW_DATA *d, int np) {
  unsigned b = buffer_size();
  trace_on(tag, 0, b, b, b, b);
  adouble *ap = new adouble[np];
  for (int i = 0; i < np; i++)
    ap[i] <<= p[i];
  adouble y = ZYW_OBJECTIVE(ap, d);
  double yv;
  y >>= yv;
  delete[] ap;
  trace_off();
}

// Both variants share tape 1 (so at most one tape is in memory): "adolc"
// always records it anew, "adolc-reuse" only when it was recorded for
// another point.
static std::vector<double> taped_at;
static const void *taped_for;

static void retape(const double *p, const void *data, int np) {
  record(1, p, (const ZYW_DATA *)data, np);
  taped_at.assign(p, p + np);
  taped_for = data;
}

static void grad_adolc(const double *p, const void *data, double *g, int np) {
  retape(p, data, np);
  gradient(1, np, p, g);
}

static void grad_adolc_reuse(const double *p, const void *data, double *g,
                             int np) {
  if (taped_for != data || taped_at.size() != (size_t)np ||
      memcmp(taped_at.data(), p, sizeof(double) * np) != 0)
    retape(p, data, np);
  gradient(1, np, p, g);
}

// Bytes that gradient() needs for a tape recorded at p: the operations,
// locations and values of the tape plus the Taylor stack of its forward
// sweep.  The driver extrapolates this from a smaller size to skip ADOL-C
// where its tape would not fit the memory budget.
extern "C" double zyb_adolc_tape_bytes(const double *p, const void *data,
                                       int np) {
  size_t st[STAT_SIZE];
  record(3, p, (const ZYW_DATA *)data, np);
  tapestats(3, st);
  removeTape(3, ADOLC_REMOVE_COMPLETELY);
  return (double)st[NUM_OPERATIONS] + 4.0 * st[NUM_LOCATIONS] +
         8.0 * st[NUM_VALUES] + 8.0 * st[TAY_STACK_SIZE];
}

// Frees tape 1 (the next gradient records it again).
static void release_tape() {
  if (taped_for)
    removeTape(1, ADOLC_REMOVE_COMPLETELY);
  taped_for = 0;
  taped_at.clear();
}

extern "C" const ZybTool zyb_tool_adolc = {"adolc", grad_adolc, release_tape};
extern "C" const ZybTool zyb_tool_adolc_reuse = {
    "adolc-reuse", grad_adolc_reuse, release_tape};
