// Gradients through a switch-based bytecode interpreter: one loop whose
// body dispatches on the opcode, a value stack in a local array or on the
// heap indexed by a stack pointer, and a program counter that depends on
// the bytecode, on loop counters and on the data (a conditional jump on the
// sign of the stack top).  Programs: a straight-line expression, a counted
// loop, a nested counted loop, and a loop that runs until a value crosses a
// threshold.  Gradients with respect to the inputs x, checked against a
// closed form and finite differences at several inputs.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#include "fd-memory.h"

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum {
  HALT,
  PUSH_X, /* i: push x[i]                                 */
  PUSH_C, /* k: push k / 4                                */
  ADD,
  SUB, /* a b -> a - b */
  MUL,
  SIN,
  EXP,
  DUP,
  SWAP,
  SETCNT, /* r k: counter r = k                          */
  LOOP,   /* r t: if --counter r > 0 jump to t           */
  JNEG    /* t: pop; jump to t if it was negative        */
};

#define STACK 16

double run(const int *code, const double *x, int on_heap) {
  double local[STACK];
  double *st = on_heap ? malloc(STACK * sizeof(double)) : local;
  int cnt[2] = {0, 0};
  int sp = 0, pc = 0;
  double t;
  for (;;) {
    switch (code[pc]) {
    case PUSH_X:
      st[sp++] = x[code[pc + 1]];
      pc += 2;
      break;
    case PUSH_C:
      st[sp++] = code[pc + 1] * 0.25;
      pc += 2;
      break;
    case ADD:
      sp--;
      st[sp - 1] += st[sp];
      pc++;
      break;
    case SUB:
      sp--;
      st[sp - 1] -= st[sp];
      pc++;
      break;
    case MUL:
      sp--;
      st[sp - 1] *= st[sp];
      pc++;
      break;
    case SIN:
      st[sp - 1] = sin(st[sp - 1]);
      pc++;
      break;
    case EXP:
      st[sp - 1] = exp(st[sp - 1]);
      pc++;
      break;
    case DUP:
      st[sp] = st[sp - 1];
      sp++;
      pc++;
      break;
    case SWAP:
      t = st[sp - 1];
      st[sp - 1] = st[sp - 2];
      st[sp - 2] = t;
      pc++;
      break;
    case SETCNT:
      cnt[code[pc + 1]] = code[pc + 2];
      pc += 3;
      break;
    case LOOP:
      if (--cnt[code[pc + 1]] > 0)
        pc = code[pc + 2];
      else
        pc += 3;
      break;
    case JNEG:
      sp--;
      pc = st[sp] < 0 ? code[pc + 1] : pc + 2;
      break;
    default: /* HALT */
      t = st[sp - 1];
      if (on_heap)
        free(st);
      return t;
    }
  }
}

/* The programs, each line commented with the offset of its first word. */
// clang-format off
/* x0 * x1 + sin(x2) + exp(x3 - x0) (x3 - x0 through SWAP and SUB) */
static const int straight[] = {
    PUSH_X, 0, PUSH_X, 1, MUL,                 /*  0 */
    PUSH_X, 2, SIN, ADD,                       /*  5 */
    PUSH_X, 0, PUSH_X, 3, SWAP, SUB, EXP, ADD, /*  9 */
    HALT};

/* v = x0; 6 times: v = sin(v) * x1 + x2 */
static const int counted[] = {
    PUSH_X, 0,                                 /*  0 */
    SETCNT, 0, 6,                              /*  2 */
    SIN, PUSH_X, 1, MUL, PUSH_X, 2, ADD,       /*  5: body */
    LOOP, 0, 5,                                /* 12 */
    HALT};

/* v = x3; 3 times: { v = v * x0; 4 times: v = sin(v) + x1 * x2 } */
static const int nested[] = {
    PUSH_X, 3,                                 /*  0 */
    SETCNT, 0, 3,                              /*  2 */
    PUSH_X, 0, MUL,                            /*  5: outer body */
    SETCNT, 1, 4,                              /*  8 */
    SIN, PUSH_X, 1, PUSH_X, 2, MUL, ADD,       /* 11: inner body */
    LOOP, 1, 11,                               /* 18 */
    LOOP, 0, 5,                                /* 21 */
    HALT};

/* v = x0; do v = v * 1.25 + x1 * x1 while (v - 3 < 0) */
static const int until[] = {
    PUSH_X, 0,                                 /*  0 */
    PUSH_C, 5, MUL, PUSH_X, 1, DUP, MUL, ADD,  /*  2: body */
    DUP, PUSH_C, 12, SUB, JNEG, 2,             /* 10 */
    HALT};
// clang-format on

static const struct {
  const char *name;
  const int *code;
} programs[] = {{"straight", straight},
                {"counted", counted},
                {"nested", nested},
                {"until", until}};

int main(void) {
  double xs[3][4] = {
      {0.3, -0.7, 1.1, 0.4}, {1.2, 0.8, -0.6, 0.5}, {-0.4, 1.6, 0.5, -1.1}};
  char what[64];
  for (int p = 0; p < 3; p++)
    for (int g = 0; g < 4; g++)
      for (int heap = 0; heap < 2; heap++) {
        double *x = xs[p], dx[4] = {0}, fd[4];
        const int *code = programs[g].code;
        __enzyme_autodiff((void *)run, enzyme_const, code, enzyme_dup, x, dx,
                          enzyme_const, heap);
        for (int k = 0; k < 4; k++)
          fd[k] = ZY_DIFF_AT(x, k, run(code, x, heap));
        snprintf(what, sizeof what, "%s(x%d%s)", programs[g].name, p,
                 heap ? ", heap stack" : "");
        zy_check_array(what, dx, fd, 4, ZY_FD_TOL);
        if (g == 0) {
          double e = exp(x[3] - x[0]);
          double want[4] = {x[1] - e, x[0], cos(x[2]), e};
          zy_check_array("straight (closed form)", dx, want, 4, ZY_TOL);
        }
      }
  return zy_report();
}
