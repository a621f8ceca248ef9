/* lstm.h - LSTM sequence loss (ADBench/GradBench "lstm"): l stacked LSTM
 * layers with ADBench's elementwise (diagonal) weights predict each next
 * character of a c-step sequence of b-vectors; the loss is the mean
 * negative log-softmax of the true next vector.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Active parameters = [main (l*2*4*b): per layer 4b weights then 4b biases
 * | extra (3*b): input weights, output weights, output biases].  The
 * initial state (l*2*b: hidden, cell per layer) and the sequence are
 * constants.  As in ADBench: forget and output gates read the layer input,
 * input gate and candidate read the layer's previous hidden state, and
 * logsumexp is log(sum exp(y) + 2). */
#ifndef ZY_BENCH_LSTM_H
#define ZY_BENCH_LSTM_H

#include "zyreal.h"

typedef struct LstmData {
  int l, c, b;
  double *state; /* l*2*b */
  double *seq;   /* c*b */
} LstmData;

static const char *const lstm_sizes[3] = {"l=2 c=6 b=3", "l=2 c=1024 b=14",
                                          "l=4 c=4096 b=128"};

static ZY_REAL lstm_sigmoid(ZY_REAL x) { return 1.0 / (1.0 + exp(-x)); }

static ZY_REAL lstm_objective(const ZY_REAL *p, const LstmData *d) {
  int l = d->l, c = d->c, b = d->b;
  const ZY_REAL *main_p = p, *extra = p + l * 2 * 4 * b;
  ZY_REAL *state = ZY_ALLOC(l * 2 * b), *x = ZY_ALLOC(b);
  for (int i = 0; i < l * 2 * b; i++)
    state[i] = d->state[i];
  ZY_REAL total = 0.0;
  for (int t = 0; t < c - 1; t++) {
    const double *input = d->seq + t * b, *gold = d->seq + (t + 1) * b;
    for (int i = 0; i < b; i++)
      x[i] = input[i] * extra[i];
    for (int layer = 0; layer < l; layer++) {
      const ZY_REAL *w = main_p + layer * 2 * 4 * b, *bias = w + 4 * b;
      ZY_REAL *hidden = state + layer * 2 * b, *cell = hidden + b;
      for (int i = 0; i < b; i++) {
        ZY_REAL forget = lstm_sigmoid(x[i] * w[i] + bias[i]);
        ZY_REAL ingate = lstm_sigmoid(hidden[i] * w[b + i] + bias[b + i]);
        ZY_REAL outgate = lstm_sigmoid(x[i] * w[2 * b + i] + bias[2 * b + i]);
        ZY_REAL change = tanh(hidden[i] * w[3 * b + i] + bias[3 * b + i]);
        cell[i] = cell[i] * forget + ingate * change;
        hidden[i] = outgate * tanh(cell[i]);
        x[i] = hidden[i];
      }
    }
    ZY_REAL sum = 0.0;
    for (int i = 0; i < b; i++) {
      x[i] = x[i] * extra[b + i] + extra[2 * b + i];
      sum += exp(x[i]);
    }
    ZY_REAL lse = log(sum + 2.0);
    for (int i = 0; i < b; i++)
      total += gold[i] * (x[i] - lse);
  }
  ZY_FREE(state);
  ZY_FREE(x);
  return -total / ((c - 1) * b);
}

static ZY_UNUSED int lstm_make(int size, LstmData *d, double **pp) {
  static const int dims[3][3] = {{2, 6, 3}, {2, 1024, 14}, {4, 4096, 128}};
  ZyRng r = {11};
  d->l = dims[size][0];
  d->c = dims[size][1];
  d->b = dims[size][2];
  int np = d->l * 2 * 4 * d->b + 3 * d->b;
  double *p = zy_alloc_doubles(np);
  for (int i = 0; i < np; i++)
    p[i] = zy_rng_uniform(&r, -1, 1);
  d->state = zy_alloc_doubles(2 * (size_t)d->l * d->b);
  for (int i = 0; i < 2 * d->l * d->b; i++)
    d->state[i] = zy_rng_uniform(&r, -1, 1);
  d->seq = zy_alloc_doubles((size_t)d->c * d->b);
  for (int i = 0; i < d->c * d->b; i++)
    d->seq[i] = zy_rng_uniform(&r, 0, 1);
  *pp = p;
  return np;
}

static ZY_UNUSED void lstm_free(LstmData *d) {
  free(d->state);
  free(d->seq);
}

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double lstm_work(const LstmData *d) {
  return (double)d->l * d->c * d->b;
}

#define ZYW_NAME "lstm"
#define ZYW_DATA LstmData
#define ZYW_SIZES lstm_sizes
#define ZYW_OBJECTIVE lstm_objective
#define ZYW_MAKE lstm_make
#define ZYW_FREE lstm_free
#define ZYW_WORK lstm_work

#endif
