/* lstm-manual.c - hand-written gradient of lstm.h's objective: a forward
 * pass that stores each cell's gates, then backpropagation through time.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "lstm.h"
#include <string.h>

/* What the reverse pass needs of one layer at one step, b values each. */
enum { IN, HID, CELL, FG, IG, OG, CH, TC, NSAVED };

static double sigmoid(double x) { return 1 / (1 + exp(-x)); }

static void lstm_grad_manual(const double *p, const void *data, double *g,
                             int np) {
  const LstmData *d = (const LstmData *)data;
  int l = d->l, c = d->c, b = d->b, steps = c - 1;
  const double *extra = p + l * 2 * 4 * b;
  double *gextra = g + l * 2 * 4 * b;
  size_t per_step = (size_t)l * NSAVED * b;
  double *tape = zy_alloc_doubles(per_step * steps);
  double *state = zy_alloc_doubles(2 * (size_t)l * b);
  double *y = zy_alloc_doubles((size_t)steps * b), *x = zy_alloc_doubles(b);
  double *ghid = zy_alloc_doubles((size_t)l * b),
         *gcell = zy_alloc_doubles((size_t)l * b);
  double *sums = zy_alloc_doubles(steps);
  memset(g, 0, sizeof(double) * np);
  memcpy(state, d->state, sizeof(double) * 2 * l * b);

  for (int t = 0; t < steps; t++) {
    const double *input = d->seq + t * b;
    for (int i = 0; i < b; i++)
      x[i] = input[i] * extra[i];
    for (int layer = 0; layer < l; layer++) {
      const double *w = p + layer * 2 * 4 * b, *bias = w + 4 * b;
      double *hidden = state + layer * 2 * b, *cell = hidden + b;
      double *s = tape + t * per_step + (size_t)layer * NSAVED * b;
      for (int i = 0; i < b; i++) {
        s[IN * b + i] = x[i];
        s[HID * b + i] = hidden[i];
        s[CELL * b + i] = cell[i];
        double fg = sigmoid(x[i] * w[i] + bias[i]);
        double ig = sigmoid(hidden[i] * w[b + i] + bias[b + i]);
        double og = sigmoid(x[i] * w[2 * b + i] + bias[2 * b + i]);
        double ch = tanh(hidden[i] * w[3 * b + i] + bias[3 * b + i]);
        cell[i] = cell[i] * fg + ig * ch;
        double tc = tanh(cell[i]);
        hidden[i] = og * tc;
        x[i] = hidden[i];
        s[FG * b + i] = fg;
        s[IG * b + i] = ig;
        s[OG * b + i] = og;
        s[CH * b + i] = ch;
        s[TC * b + i] = tc;
      }
    }
    double sum = 0;
    for (int i = 0; i < b; i++) {
      y[t * b + i] = x[i] * extra[b + i] + extra[2 * b + i];
      sum += exp(y[t * b + i]);
    }
    sums[t] = sum + 2;
  }

  double gtotal = -1.0 / ((double)steps * b);
  for (int t = steps - 1; t >= 0; t--) {
    const double *gold = d->seq + (t + 1) * b;
    double gsum = 0;
    for (int i = 0; i < b; i++)
      gsum += gold[i];
    const double *top = tape + t * per_step + (size_t)(l - 1) * NSAVED * b;
    for (int i = 0; i < b; i++) {
      /* y_i = h_i extra_b+i + extra_2b+i; total += gold (y - lse) */
      double gy = gtotal * (gold[i] - gsum * exp(y[t * b + i]) / sums[t]);
      double h = top[OG * b + i] * top[TC * b + i];
      gextra[b + i] += gy * h;
      gextra[2 * b + i] += gy;
      x[i] = gy * extra[b + i];
    }
    for (int layer = l - 1; layer >= 0; layer--) {
      const double *w = p + layer * 2 * 4 * b;
      double *gw = g + layer * 2 * 4 * b, *gbias = gw + 4 * b;
      const double *s = tape + t * per_step + (size_t)layer * NSAVED * b;
      double *gh = ghid + layer * b, *gc = gcell + layer * b;
      for (int i = 0; i < b; i++) {
        double fg = s[FG * b + i], ig = s[IG * b + i], og = s[OG * b + i];
        double ch = s[CH * b + i], tc = s[TC * b + i];
        double in = s[IN * b + i], hid = s[HID * b + i];
        double ghn = x[i] + gh[i];
        double gcn = gc[i] + ghn * og * (1 - tc * tc);
        double gaf = gcn * s[CELL * b + i] * fg * (1 - fg);
        double gai = gcn * ch * ig * (1 - ig);
        double gao = ghn * tc * og * (1 - og);
        double gac = gcn * ig * (1 - ch * ch);
        gc[i] = gcn * fg;
        gw[i] += gaf * in;
        gbias[i] += gaf;
        gw[b + i] += gai * hid;
        gbias[b + i] += gai;
        gw[2 * b + i] += gao * in;
        gbias[2 * b + i] += gao;
        gw[3 * b + i] += gac * hid;
        gbias[3 * b + i] += gac;
        gh[i] = gai * w[b + i] + gac * w[3 * b + i];
        x[i] = gaf * w[i] + gao * w[2 * b + i];
      }
    }
    for (int i = 0; i < b; i++)
      gextra[i] += x[i] * d->seq[t * b + i];
  }
  free(tape);
  free(state);
  free(y);
  free(x);
  free(ghid);
  free(gcell);
  free(sums);
}

const ZybTool zyb_tool_manual = {"manual", lstm_grad_manual};
