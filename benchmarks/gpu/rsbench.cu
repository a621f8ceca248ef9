// rsbench.cu - an RSBench-style multipole cross-section lookup (after the
// published description of RSBench): each nuclide's resonances are poles
// with complex residues, grouped in energy windows; a lookup evaluates,
// for each nuclide of its material, the poles of the window holding its
// energy through a Faddeeva-function approximation (complex arithmetic,
// exp, sqrt), plus the window's background fit, the result scaled by a
// density.  One GPU thread per lookup; checked against the serial loop.
// Then the gradient of J = sum seed * out with respect to the poles
// (positions and residues), the fits and the concentrations (scatter-adds
// shared by many lookups) and the density (every thread: a reduction):
// Zymase's (__enzyme_autodiff of the thread's body) against a
// hand-written adjoint kernel and central finite differences.
// Usage: rsbench [lookups [reps]] (reps 0: the primal only)
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

/* w'(z): w(z) = z (i a / (z^2 - b) + i c / (z^2 - d)) + 0.01 exp(-z^2) is
 * holomorphic (the hand-written adjoint's derivative). */
__device__ static Cx faddeeva_d(Cx z) {
  const double a = 0.5124242, b = 0.2752551, c = 0.05176536, d = 2.724745;
  Cx z2 = cmul(z, z), q1 = {z2.re - b, z2.im}, q2 = {z2.re - d, z2.im};
  Cx t1 = cdiv({0, a}, q1), t2 = cdiv({0, c}, q2), tz = {2 * z.re, 2 * z.im};
  Cx d1 = cdiv(cmul(t1, tz), q1), d2 = cdiv(cmul(t2, tz), q2);
  Cx zd = cmul(z, {d1.re + d2.re, d1.im + d2.im});
  double m = 0.01 * exp(-z2.re);
  Cx ez = cmul(tz, {m * cos(z2.im), -m * sin(z2.im)});
  return {t1.re + t2.re - zd.re - ez.re, t1.im + t2.im - zd.im - ez.im};
}

__host__ __device__ static unsigned long long lcg(unsigned long long s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}
__host__ __device__ static double unit(unsigned long long s) {
  return (double)(s >> 11) * (1.0 / 9007199254740992.0);
}

__host__ __device__ static void lookup(long i, const Pole *poles,
                                       const double *fit, const int *mats,
                                       const double *conc, double density,
                                       double *out) {
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
    out[x] = density * xs[x];
}

__global__ void lookups(long n, const Pole *poles, const double *fit,
                        const int *mats, const double *conc, double density,
                        double *out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, poles, fit, mats, conc, density, out + i * 3);
}

/* The thread's lookup, the body that Zymase differentiates (the density
 * in memory: its adjoint is a sum over the grid). */
__device__ void lookup_thread(long n, const Pole *__restrict__ poles,
                              const double *__restrict__ fit,
                              const int *__restrict__ mats,
                              const double *__restrict__ conc,
                              const double *__restrict__ density,
                              double *__restrict__ out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, poles, fit, mats, conc, *density, out + i * 3);
}

/* d/d(poles, fit, conc, density) of sum dout * out, added to the shadows;
 * dout consumed (zeroed), as Enzyme does. */
__global__ void lookups_zymase(long n, const Pole *poles, Pole *dpoles,
                               const double *fit, double *dfit, const int *mats,
                               const double *conc, double *dconc,
                               const double *density, double *ddensity,
                               double *out, double *dout) {
  __enzyme_autodiff((void *)lookup_thread, enzyme_const, n, enzyme_dup, poles,
                    dpoles, enzyme_dup, fit, dfit, enzyme_const, mats,
                    enzyme_dup, conc, dconc, enzyme_dup, density, ddensity,
                    enzyme_dup, out, dout);
}
/* The same with respect to the density only (the reduction). */
__global__ void lookups_zymase_density(long n, const Pole *poles,
                                       const double *fit, const int *mats,
                                       const double *conc,
                                       const double *density, double *ddensity,
                                       double *out, double *dout) {
  __enzyme_autodiff((void *)lookup_thread, enzyme_const, n, enzyme_const, poles,
                    enzyme_const, fit, enzyme_const, mats, enzyme_const, conc,
                    enzyme_dup, density, ddensity, enzyme_dup, out, dout);
}

/* The hand-written adjoint: the lookup again, each pole's term reversed
 * through w'(z) (w holomorphic: the adjoint of z is conj(w') times that
 * of w), atomic adds into the poles, fits and concentrations read; the
 * density's adjoint summed over the block. */
__global__ void lookups_adjoint(long n, const Pole *poles, Pole *dpoles,
                                const double *fit, double *dfit,
                                const int *mats, const double *conc,
                                double *dconc, const double *density,
                                double *ddensity, double *dout) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  double dd = 0;
  if (i < n) {
    unsigned long long s = lcg(lcg((unsigned long long)i + 99));
    double e = 0.01 + 0.98 * unit(s), rho = *density, ob[3];
    int mat = (int)(unit(lcg(s)) * MATS);
    double sqrt_e = sqrt(e);
    int win = (int)(e * WINDOWS), per = POLES / WINDOWS;
    for (int x = 0; x < 3; x++)
      ob[x] = dout[i * 3 + x], dout[i * 3 + x] = 0;
    for (int k = 0; k < PER_MAT; k++) {
      int nuc = mats[mat * PER_MAT + k];
      double c = conc[mat * PER_MAT + k], dc = 0;
      long fa = ((long)nuc * WINDOWS + win) * 3;
      for (int x = 0; x < 3; x++) {
        double t = fit[fa + x] * (1 + e);
        dd += ob[x] * c * t;
        dc += rho * ob[x] * t;
        atomicAdd(&dfit[fa + x], c * (1 + e) * rho * ob[x]);
      }
      for (int p = win * per; p < (win + 1) * per; p++) {
        const Pole &q = poles[(long)nuc * POLES + p];
        Pole &dq = dpoles[(long)nuc * POLES + p];
        Cx z = {(sqrt_e - q.pos.re) * 8, fabs(q.pos.im) * 8 + 0.1};
        Cx w = faddeeva(z), wb = {0, 0};
        for (int x = 0; x < 3; x++) {
          double t = cmul(q.res[x], w).re / e, g = c * rho * ob[x] / e;
          dd += ob[x] * c * t;
          dc += rho * ob[x] * t;
          atomicAdd(&dq.res[x].re, g * w.re);
          atomicAdd(&dq.res[x].im, -g * w.im);
          wb.re += g * q.res[x].re, wb.im -= g * q.res[x].im;
        }
        Cx wp = faddeeva_d(z), zb = cmul({wp.re, -wp.im}, wb);
        atomicAdd(&dq.pos.re, -8 * zb.re);
        atomicAdd(&dq.pos.im, (q.pos.im < 0 ? -8 : 8) * zb.im);
      }
      atomicAdd(&dconc[mat * PER_MAT + k], dc);
    }
  }
  block_add(ddensity, dd);
}

/* dJ/dp by central differences over the sampled lookups (every stride-th;
 * J = sum seed * out of those), term by term (fd_terms). */
static Fd central(long n, long stride, Pole *poles, double *fit,
                  const int *mats, double *conc, double *density, double *p,
                  const double *seed, double *op, double *om) {
  const double h = 1e-7 * std::fmax(1.0, std::fabs(*p)), keep = *p;
  for (int side = 0; side < 2; side++) {
    *p = side ? keep - h : keep + h;
    for (long i = 0, j = 0; i < n; i += stride, j++)
      lookup(i, poles, fit, mats, conc, *density, (side ? om : op) + j * 3);
  }
  *p = keep;
  return fd_terms(seed, op, om, ((n + stride - 1) / stride) * 3, h);
}

static void gradients(long n, Pole *poles, double *fit, int *mats, double *conc,
                      double density, int reps) {
  long np = (long)NUCLIDES * POLES, nf = (long)NUCLIDES * WINDOWS * 3;
  long nc = MATS * PER_MAT, no = n * 3;
  size_t psize = sizeof(Pole) * np, fsize = sizeof(double) * nf;
  size_t osize = sizeof(double) * no;
  long stride = sample_stride(n), ns = (n + stride - 1) / stride;
  double *seed = (double *)malloc(osize), *sseed = (double *)malloc(osize);
  double *op = (double *)malloc(sizeof(double) * ns * 3);
  double *om = (double *)malloc(sizeof(double) * ns * 3);
  double *ss = (double *)malloc(sizeof(double) * ns * 3);
  Pole *pz = (Pole *)malloc(psize), *ph = (Pole *)malloc(psize);
  double *fz = (double *)malloc(fsize), *fh = (double *)malloc(fsize);
  double cz[MATS * PER_MAT], ch[MATS * PER_MAT], dz, dh, dd_only;
  for (long k = 0; k < no; k++) {
    seed[k] = cos(0.37 * k);
    sseed[k] = (k / 3) % stride ? 0 : seed[k];
    if ((k / 3) % stride == 0)
      ss[(k / 3) / stride * 3 + k % 3] = seed[k];
  }
  Pole *d_poles, *d_dpoles;
  int *d_mats;
  double *d_fit, *d_dfit, *d_conc, *d_dconc, *d_den, *d_dden, *d_out, *d_dout;
  CK(cudaMalloc(&d_poles, psize));
  CK(cudaMalloc(&d_dpoles, psize));
  CK(cudaMalloc(&d_fit, fsize));
  CK(cudaMalloc(&d_dfit, fsize));
  CK(cudaMalloc(&d_mats, sizeof(int) * nc));
  CK(cudaMalloc(&d_conc, sizeof(double) * nc));
  CK(cudaMalloc(&d_dconc, sizeof(double) * nc));
  CK(cudaMalloc(&d_den, sizeof(double)));
  CK(cudaMalloc(&d_dden, sizeof(double)));
  CK(cudaMalloc(&d_out, osize));
  CK(cudaMalloc(&d_dout, osize));
  CK(cudaMemcpy(d_poles, poles, psize, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_fit, fit, fsize, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_mats, mats, sizeof(int) * nc, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_conc, conc, sizeof(double) * nc, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_den, &density, sizeof(double), cudaMemcpyHostToDevice));
  long blocks = (n + 127) / 128;
  Counts at[3];
  for (int which = 0; which < 3; which++) {
    CK(cudaMemcpy(d_dout, seed, osize, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dpoles, 0, psize));
    CK(cudaMemset(d_dfit, 0, fsize));
    CK(cudaMemset(d_dconc, 0, sizeof(double) * nc));
    CK(cudaMemset(d_dden, 0, sizeof(double)));
    Counts a0 = counts_now();
    if (which == 0)
      lookups_zymase<<<blocks, 128>>>(n, d_poles, d_dpoles, d_fit, d_dfit,
                                      d_mats, d_conc, d_dconc, d_den, d_dden,
                                      d_out, d_dout);
    else if (which == 1)
      lookups_zymase_density<<<blocks, 128>>>(n, d_poles, d_fit, d_mats, d_conc,
                                              d_den, d_dden, d_out, d_dout);
    else
      lookups_adjoint<<<blocks, 128>>>(n, d_poles, d_dpoles, d_fit, d_dfit,
                                       d_mats, d_conc, d_dconc, d_den, d_dden,
                                       d_dout);
    CK(cudaDeviceSynchronize());
    at[which] = counts_since(a0);
    if (which != 1) {
      CK(cudaMemcpy(which ? ph : pz, d_dpoles, psize, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(which ? fh : fz, d_dfit, fsize, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(which ? ch : cz, d_dconc, sizeof(double) * nc,
                    cudaMemcpyDeviceToHost));
    }
    CK(cudaMemcpy(which == 0   ? &dz
                  : which == 1 ? &dd_only
                               : &dh,
                  d_dden, sizeof(double), cudaMemcpyDeviceToHost));
  }
  grad_agree("rsbench dJ/dpoles", (double *)pz, (double *)ph, np * 8, 1e-10);
  grad_agree("rsbench dJ/dfit", fz, fh, nf, 1e-12);
  grad_agree("rsbench dJ/dconc", cz, ch, nc, 1e-12);
  grad_agree("rsbench dJ/ddensity", &dz, &dh, 1, 1e-10);
  grad_agree("rsbench dJ/ddensity (density only)", &dd_only, &dh, 1, 1e-10);
  /* Central differences of J over the sampled lookups (the hand-written
   * adjoint again on their seed when sampled): the density, the largest
   * dJ/dconc, dJ/dfit, residue and position derivatives. */
  if (stride > 1) {
    CK(cudaMemcpy(d_dout, sseed, osize, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dpoles, 0, psize));
    CK(cudaMemset(d_dfit, 0, fsize));
    CK(cudaMemset(d_dconc, 0, sizeof(double) * nc));
    CK(cudaMemset(d_dden, 0, sizeof(double)));
    lookups_adjoint<<<blocks, 128>>>(n, d_poles, d_dpoles, d_fit, d_dfit,
                                     d_mats, d_conc, d_dconc, d_den, d_dden,
                                     d_dout);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(ph, d_dpoles, psize, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(fh, d_dfit, fsize, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ch, d_dconc, sizeof(double) * nc, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&dh, d_dden, sizeof(double), cudaMemcpyDeviceToHost));
  }
  fd_check("rsbench dJ/ddensity", dh,
           central(n, stride, poles, fit, mats, conc, &density, &density, ss,
                   op, om),
           1e-6);
  long kc = argmax_abs(ch, nc), kf = argmax_abs(fh, nf);
  long kr = argmax_abs((double *)ph, np * 8), kp = 0;
  for (long k = 1; k < np; k++)
    if (fabs(ph[k].pos.re) > fabs(ph[kp].pos.re))
      kp = k;
  fd_check("rsbench dJ/dconc", ch[kc],
           central(n, stride, poles, fit, mats, conc, &density, &conc[kc], ss,
                   op, om),
           1e-6);
  fd_check("rsbench dJ/dfit", fh[kf],
           central(n, stride, poles, fit, mats, conc, &density, &fit[kf], ss,
                   op, om),
           1e-6);
  fd_check("rsbench dJ/dpoles", ((double *)ph)[kr],
           central(n, stride, poles, fit, mats, conc, &density,
                   &((double *)poles)[kr], ss, op, om),
           1e-5);
  fd_check("rsbench dJ/dpoles (position)", ph[kp].pos.re,
           central(n, stride, poles, fit, mats, conc, &density,
                   &poles[kp].pos.re, ss, op, om),
           1e-5);
  auto reseed = [&] {
    CK(cudaMemcpy(d_dout, seed, osize, cudaMemcpyHostToDevice));
  };
  double primal = best_ms(reps, [&] {
    lookups<<<blocks, 128>>>(n, d_poles, d_fit, d_mats, d_conc, density, d_out);
    CK(cudaDeviceSynchronize());
  });
  double zy = best_ms_seeded(reps, reseed, [&] {
    lookups_zymase<<<blocks, 128>>>(n, d_poles, d_dpoles, d_fit, d_dfit, d_mats,
                                    d_conc, d_dconc, d_den, d_dden, d_out,
                                    d_dout);
    CK(cudaDeviceSynchronize());
  });
  double hand = best_ms_seeded(reps, reseed, [&] {
    lookups_adjoint<<<blocks, 128>>>(n, d_poles, d_dpoles, d_fit, d_dfit,
                                     d_mats, d_conc, d_dconc, d_den, d_dden,
                                     d_dout);
    CK(cudaDeviceSynchronize());
  });
  grad_report("rsbench", primal, zy, hand, at[0], at[1], at[2]);
  cudaFree(d_poles), cudaFree(d_dpoles), cudaFree(d_fit), cudaFree(d_dfit);
  cudaFree(d_mats), cudaFree(d_conc), cudaFree(d_dconc), cudaFree(d_den);
  cudaFree(d_dden), cudaFree(d_out), cudaFree(d_dout);
  free(seed), free(sseed), free(ss), free(op), free(om), free(pz), free(ph),
      free(fz), free(fh);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 50000;
  long np = (long)NUCLIDES * POLES, nf = (long)NUCLIDES * WINDOWS * 3;
  Pole *poles = (Pole *)malloc(sizeof(Pole) * np);
  double *fit = (double *)malloc(sizeof(double) * nf);
  int mats[MATS * PER_MAT];
  double conc[MATS * PER_MAT], density = 1.3;
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
  /* The serial reference on every stride-th lookup (its time scaled). */
  long stride = sample_stride(n), ns = (n + stride - 1) / stride;
  double *ref = (double *)malloc(sizeof(double) * ns * 3);
  double *got = (double *)malloc(sizeof(double) * n * 3);
  double t0 = now_ms();
  for (long i = 0, j = 0; i < n; i += stride, j++)
    lookup(i, poles, fit, mats, conc, density, ref + j * 3);
  double serial = (now_ms() - t0) * stride;

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
  lookups<<<(n + 127) / 128, 128>>>(n, dpoles, dfit, dmats, dconc, density,
                                    dout);
  CK(cudaDeviceSynchronize());
  double gpu = now_ms() - t0;
  CK(cudaMemcpy(got, dout, sizeof(double) * n * 3, cudaMemcpyDeviceToHost));
  for (long i = 0, j = 0; i < n; i += stride, j++)
    for (int x = 0; x < 3; x++)
      got[j * 3 + x] = got[i * 3 + x];
  agree("rsbench", got, ref, ns * 3, 1e-9);
  report("rsbench", serial, gpu);
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (reps > 0) /* 0: the primal only */
    gradients(n, poles, fit, mats, conc, density, reps);
  return 0;
}
