// rsbench.cu - an RSBench-style multipole cross-section lookup (after the
// published description of RSBench): each nuclide's resonances are poles
// with complex residues, grouped in energy windows; a lookup evaluates,
// for each nuclide of its material, the poles of the window holding its
// energy through a Faddeeva-function approximation (complex arithmetic,
// exp, sqrt), plus the window's background fit.  One GPU thread per
// lookup; checked against the serial loop.  Usage: rsbench [lookups]
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "bench.h"

enum { NUCLIDES = 40, POLES = 400, WINDOWS = 40, MATS = 12, PER_MAT = 10 };

struct Cx {
  double re, im;
};
__host__ __device__ static Cx cmul(Cx a, Cx b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
__host__ __device__ static Cx cdiv(Cx a, Cx b) {
  double d = b.re * b.re + b.im * b.im;
  return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
}
struct Pole {
  Cx pos, res[3];
};

/* A rational approximation of the Faddeeva function w(z) in the upper
 * half plane (two-term asymptotic form, plus a damped correction near
 * the real axis). */
__host__ __device__ static Cx faddeeva(Cx z) {
  const double a = 0.5124242, b = 0.2752551, c = 0.05176536, d = 2.724745;
  Cx z2 = cmul(z, z);
  Cx t1 = cdiv({0, a}, {z2.re - b, z2.im});
  Cx t2 = cdiv({0, c}, {z2.re - d, z2.im});
  Cx w = cmul(z, {t1.re + t2.re, t1.im + t2.im});
  double damp = exp(-z2.re) * 0.01;
  return {w.re + damp * cos(z2.im), w.im - damp * sin(z2.im)};
}

__host__ __device__ static unsigned long long lcg(unsigned long long s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}
__host__ __device__ static double unit(unsigned long long s) {
  return (double)(s >> 11) * (1.0 / 9007199254740992.0);
}

__host__ __device__ static void lookup(long i, const Pole *poles,
                                       const double *fit, const int *mats,
                                       const double *conc, double *out) {
  unsigned long long s = lcg(lcg((unsigned long long)i + 99));
  double e = 0.01 + 0.98 * unit(s);
  int mat = (int)(unit(lcg(s)) * MATS);
  double sqrt_e = sqrt(e), xs[3] = {0, 0, 0};
  int win = (int)(e * WINDOWS), per = POLES / WINDOWS;
  for (int k = 0; k < PER_MAT; k++) {
    int nuc = mats[mat * PER_MAT + k];
    double c = conc[mat * PER_MAT + k];
    const double *f = fit + ((long)nuc * WINDOWS + win) * 3;
    for (int x = 0; x < 3; x++)
      xs[x] += c * (f[x] + f[x] * e);
    for (int p = win * per; p < (win + 1) * per; p++) {
      const Pole &q = poles[(long)nuc * POLES + p];
      Cx z = {(sqrt_e - q.pos.re) * 8, fabs(q.pos.im) * 8 + 0.1};
      Cx w = faddeeva(z);
      for (int x = 0; x < 3; x++)
        xs[x] += c * cmul(q.res[x], w).re / e;
    }
  }
  for (int x = 0; x < 3; x++)
    out[i * 3 + x] = xs[x];
}

__global__ void lookups(long n, const Pole *poles, const double *fit,
                        const int *mats, const double *conc, double *out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, poles, fit, mats, conc, out);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 50000;
  long np = (long)NUCLIDES * POLES, nf = (long)NUCLIDES * WINDOWS * 3;
  Pole *poles = (Pole *)malloc(sizeof(Pole) * np);
  double *fit = (double *)malloc(sizeof(double) * nf);
  int mats[MATS * PER_MAT];
  double conc[MATS * PER_MAT];
  unsigned long long s = 3;
  for (long p = 0; p < np; p++) {
    poles[p].pos = {((p % POLES) + unit(s = lcg(s))) / POLES,
                    0.01 * unit(s = lcg(s))};
    for (int x = 0; x < 3; x++)
      poles[p].res[x] = {unit(s = lcg(s)), unit(s = lcg(s)) - 0.5};
  }
  for (long k = 0; k < nf; k++)
    fit[k] = unit(s = lcg(s));
  for (int k = 0; k < MATS * PER_MAT; k++)
    mats[k] = (int)(unit(s = lcg(s)) * NUCLIDES), conc[k] = unit(s = lcg(s));
  double *ref = (double *)malloc(sizeof(double) * n * 3);
  double *got = (double *)malloc(sizeof(double) * n * 3);
  double t0 = now_ms();
  for (long i = 0; i < n; i++)
    lookup(i, poles, fit, mats, conc, ref);
  double serial = now_ms() - t0;

  Pole *dpoles;
  int *dmats;
  double *dfit, *dconc, *dout;
  CK(cudaMalloc(&dpoles, sizeof(Pole) * np));
  CK(cudaMalloc(&dfit, sizeof(double) * nf));
  CK(cudaMalloc(&dmats, sizeof mats));
  CK(cudaMalloc(&dconc, sizeof conc));
  CK(cudaMalloc(&dout, sizeof(double) * n * 3));
  CK(cudaMemcpy(dpoles, poles, sizeof(Pole) * np, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dfit, fit, sizeof(double) * nf, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dmats, mats, sizeof mats, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dconc, conc, sizeof conc, cudaMemcpyHostToDevice));
  t0 = now_ms();
  lookups<<<(n + 127) / 128, 128>>>(n, dpoles, dfit, dmats, dconc, dout);
  CK(cudaDeviceSynchronize());
  double gpu = now_ms() - t0;
  CK(cudaMemcpy(got, dout, sizeof(double) * n * 3, cudaMemcpyDeviceToHost));
  agree("rsbench", got, ref, n * 3, 1e-9);
  report("rsbench", serial, gpu);
  return 0;
}
