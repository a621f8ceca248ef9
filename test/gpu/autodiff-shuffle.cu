// Gradients through warp shuffles (parallel/gpu_shuffle.c): the adjoint of
// a shuffle is the transposed exchange.  A __shfl_down_sync tree sum whose
// result lane 0 returns (each lane must get f'(x_i)), the same sum
// returned by every lane with a weight, a __shfl_xor_sync butterfly
// all-reduce, a __shfl_up_sync inclusive scan, __shfl_sync broadcasts and
// rotations (full warps and segments of 8), __ballot_sync, __any_sync,
// __all_sync and __activemask (inactive: integers), offsets that differ
// between lanes (down, xor: each lane then asks all 32), values shuffled
// as loaded (a double loaded as i64 by the optimizer); float and double,
// in blocks of 32, 64 and 48 (a partial warp of 16 lanes, shuffling
// within its __activemask()).  Reference: the same shuffles simulated on
// the host (PTX semantics) on coefficient vectors.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
#include "gpu-check.h"

#include <cstring>

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

enum {
  DOWN_LANE0,
  DOWN_ALL,
  XOR_ALL,
  UP_SCAN,
  BCAST,
  ROTATE,
  ROTATE8,
  VOTES,
  DOWN_VAR,
  XOR_VAR,
  RAW,
  NCASE
};
static const char *const names[] = {
    "down-lane0", "down-weighted", "xor",          "up-scan",
    "broadcast",  "rotate",        "rotate8",      "votes",
    "down-by-lane", "xor-by-lane", "loaded"};

template <typename T> __device__ T f(T x) { return sin(x) * x; }
static double df(double x) { return cos(x) * x + sin(x); }

/* One function per case (the case is a template argument: each gradient
 * has its own shuffles). */
template <typename T, int C> __device__ T body(const T *x, const T *w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  unsigned mask = __activemask();
  int width = __popc(mask); /* 32, or 16 in a block of 48's last warp */
  if (C == RAW) /* values loaded and shuffled: the optimizer loads bits */
    return w[i] * (__shfl_down_sync(mask, x[i], 1, width) * 3 +
                   __shfl_sync(mask, x[i], 0, width));
  T v = f(x[i]);
  if (C == DOWN_LANE0 || C == DOWN_ALL) {
    for (int off = width / 2; off > 0; off /= 2)
      v += __shfl_down_sync(mask, v, off, width);
    if (C == DOWN_LANE0)
      return lane == 0 ? v : 0;
  } else if (C == XOR_ALL) {
    for (int off = 1; off < width; off *= 2)
      v += __shfl_xor_sync(mask, v, off, width);
  } else if (C == UP_SCAN) {
    for (int off = 1; off < width; off *= 2) {
      T t = __shfl_up_sync(mask, v, off, width);
      if (lane % width >= off)
        v += t;
    }
  } else if (C == BCAST) {
    v = v * __shfl_sync(mask, v, 3, width);
  } else if (C == ROTATE) {
    v = __shfl_sync(mask, v, (lane + 5) % width, width) * 2 + v;
  } else if (C == ROTATE8) {
    v = __shfl_sync(mask, v, lane + 1, 8);
  } else if (C == DOWN_VAR) { /* offsets differing between lanes */
    v = v + __shfl_down_sync(mask, v, lane % 3 + 1, width) * 3;
  } else if (C == XOR_VAR) {
    v = v + __shfl_xor_sync(mask, v, lane & 1 ? 1 : 2, width) * 3;
  } else if (C == VOTES) { /* integer results: no derivative */
    T s = __popc(__ballot_sync(mask, v > (T)0.4)) + __popc(__activemask());
    if (__any_sync(mask, v > (T)1e9) || !__all_sync(mask, v > 0))
      s += 1000;
    v = v * s;
  }
  return w[i] * v;
}

template <typename T, int C>
__global__ void grad(const T *x, T *dx, const T *w) {
  __enzyme_autodiff((void *)body<T, C>, enzyme_dup, x, dx, enzyme_const, w);
}

/* --- The host's reference: a lane's value as coefficients of the f(x_k)
 * of its warp; shuffles as PTX defines them. */
struct Val {
  double c[32];
};
enum { IDX, UP, DOWN, BFLY };
static void shfl(Val *v, int lanes, int mode, const int *b, int width) {
  Val out[32];
  int cc = ((32 - width) << 8) | (mode == UP ? 0 : 0x1f);
  int seg = (cc >> 8) & 31;
  for (int l = 0; l < lanes; l++) {
    int maxl = (l & seg) | (cc & 31 & ~seg), minl = l & seg, j, ok;
    switch (mode) {
    case UP: j = l - b[l]; ok = j >= maxl; break;
    case DOWN: j = l + b[l]; ok = j <= maxl; break;
    case BFLY: j = l ^ b[l]; ok = j <= maxl; break;
    default: j = minl | (b[l] & 31 & ~seg); ok = j <= maxl; break;
    }
    out[l] = ok && j >= 0 && j < lanes ? v[j] : v[l];
  }
  memcpy(v, out, sizeof(Val) * lanes);
}
static void add(Val *a, const Val *b, int lanes, int only_from = 0,
                int width = 32) {
  for (int l = 0; l < lanes; l++)
    if (l % width >= only_from)
      for (int k = 0; k < 32; k++)
        a[l].c[k] += b[l].c[k];
}

/* The reference gradient of case C for one warp of `lanes` lanes. */
static void reference(int C, int lanes, const double *xw, const double *ww,
                      double *dxw) {
  Val v[32], t[32];
  int b[32], width = lanes;
  memset(v, 0, sizeof v);
  for (int l = 0; l < lanes; l++)
    v[l].c[l] = 1;
  double w[32];
  for (int l = 0; l < lanes; l++)
    w[l] = ww[l];
  if (C == DOWN_LANE0 || C == DOWN_ALL) {
    for (int off = width / 2; off > 0; off /= 2) {
      memcpy(t, v, sizeof v);
      for (int l = 0; l < lanes; l++)
        b[l] = off;
      shfl(t, lanes, DOWN, b, width);
      add(v, t, lanes);
    }
    if (C == DOWN_LANE0)
      for (int l = 0; l < lanes; l++)
        w[l] = l == 0;
  } else if (C == XOR_ALL) {
    for (int off = 1; off < width; off *= 2) {
      memcpy(t, v, sizeof v);
      for (int l = 0; l < lanes; l++)
        b[l] = off;
      shfl(t, lanes, BFLY, b, width);
      add(v, t, lanes);
    }
  } else if (C == UP_SCAN) {
    for (int off = 1; off < width; off *= 2) {
      memcpy(t, v, sizeof v);
      for (int l = 0; l < lanes; l++)
        b[l] = off;
      shfl(t, lanes, UP, b, width);
      add(v, t, lanes, off, width);
    }
  } else if (C == DOWN_VAR || C == XOR_VAR) {
    memcpy(t, v, sizeof v);
    for (int l = 0; l < lanes; l++)
      b[l] = C == DOWN_VAR ? l % 3 + 1 : l & 1 ? 1 : 2;
    shfl(t, lanes, C == DOWN_VAR ? DOWN : BFLY, b, width);
    for (int l = 0; l < lanes; l++)
      for (int k = 0; k < 32; k++)
        t[l].c[k] *= 3;
    add(v, t, lanes);
  } else if (C == RAW) {
    memcpy(t, v, sizeof v);
    for (int l = 0; l < lanes; l++)
      b[l] = 1;
    shfl(t, lanes, DOWN, b, width);
    Val u[32];
    memcpy(u, v, sizeof v);
    for (int l = 0; l < lanes; l++)
      b[l] = 0;
    shfl(u, lanes, IDX, b, width);
    for (int l = 0; l < lanes; l++)
      for (int k = 0; k < 32; k++)
        v[l].c[k] = 3 * t[l].c[k] + u[l].c[k];
  } else if (C == VOTES) {
    int s = lanes;
    for (int l = 0; l < lanes; l++)
      s += sin(xw[l]) * xw[l] > 0.4;
    for (int l = 0; l < lanes; l++)
      v[l].c[l] = s;
  } else if (C == BCAST || C == ROTATE || C == ROTATE8) {
    memcpy(t, v, sizeof v);
    for (int l = 0; l < lanes; l++)
      b[l] = C == BCAST ? 3 : C == ROTATE ? (l + 5) % width : l + 1;
    shfl(t, lanes, IDX, b, C == ROTATE8 ? 8 : width);
    if (C == BCAST) { /* d(f_l f_3) = f_3 df_l + f_l df_3 */
      for (int k = 0; k < lanes; k++)
        dxw[k] = 0;
      double fx[32];
      for (int l = 0; l < lanes; l++)
        fx[l] = sin(xw[l]) * xw[l];
      for (int l = 0; l < lanes; l++) {
        dxw[l] += w[l] * fx[3] * df(xw[l]);
        dxw[3] += w[l] * fx[l] * df(xw[3]);
      }
      return;
    }
    if (C == ROTATE) {
      for (int l = 0; l < lanes; l++)
        for (int k = 0; k < 32; k++)
          t[l].c[k] *= 2;
      add(t, v, lanes);
    }
    memcpy(v, t, sizeof v);
  }
  for (int k = 0; k < lanes; k++) {
    double s = 0;
    for (int l = 0; l < lanes; l++)
      s += w[l] * v[l].c[k];
    dxw[k] = s * (C == RAW ? 1 : df(xw[k]));
  }
}

template <typename T, int C> static void run(int bs, T tol) {
  const int blocks = 2, n = blocks * bs;
  T *x, *dx, *w;
  CK(cudaMallocManaged(&x, n * sizeof(T)));
  CK(cudaMallocManaged(&dx, n * sizeof(T)));
  CK(cudaMallocManaged(&w, n * sizeof(T)));
  for (int i = 0; i < n; i++) {
    x[i] = (T)(0.3 + 0.01 * i);
    w[i] = (T)(1 + (i * 7 % 5) * 0.25);
    dx[i] = 0;
  }
  grad<T, C><<<blocks, bs>>>(x, dx, w);
  CK(cudaDeviceSynchronize());
  double *want = new double[n], *got = new double[n];
  for (int blk = 0; blk < blocks; blk++)
    for (int wb = 0; wb < bs; wb += 32) {
      int base = blk * bs + wb, lanes = bs - wb < 32 ? bs - wb : 32;
      double xw[32], ww[32];
      for (int l = 0; l < lanes; l++) {
        xw[l] = x[base + l];
        ww[l] = w[base + l];
      }
      reference(C, lanes, xw, ww, want + base);
    }
  for (int i = 0; i < n; i++)
    got[i] = dx[i];
  char what[96];
  snprintf(what, sizeof what, "%s %s, blocks of %d", names[C],
           sizeof(T) == 4 ? "float" : "double", bs);
  check_array(what, got, want, n, tol);
  delete[] want;
  delete[] got;
  CK(cudaFree(x));
  CK(cudaFree(dx));
  CK(cudaFree(w));
}

template <typename T> static void all(int bs, T tol) {
  run<T, DOWN_LANE0>(bs, tol);
  run<T, DOWN_ALL>(bs, tol);
  run<T, XOR_ALL>(bs, tol);
  run<T, UP_SCAN>(bs, tol);
  run<T, BCAST>(bs, tol);
  run<T, ROTATE>(bs, tol);
  run<T, ROTATE8>(bs, tol);
  run<T, VOTES>(bs, tol);
  run<T, DOWN_VAR>(bs, tol);
  run<T, XOR_VAR>(bs, tol);
  run<T, RAW>(bs, tol);
}

int main() {
  int sizes[] = {32, 64, 48};
  for (int bs : sizes) {
    all<float>(bs, 2e-5f);
    all<double>(bs, 1e-12);
  }
  return gpu_report();
}
