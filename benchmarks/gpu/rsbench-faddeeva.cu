// rsbench-faddeeva.cu - RSBench's event-based multipole lookup at its
// "small" size, written from the published description: 68 nuclides,
// each with about 1000 poles (complex position and three complex
// residues: total, absorption, fission; an angular momentum l of 0..3) in
// about 100 energy windows, each window with a background fit of the
// three cross sections; the materials of XSBench (12, with 34, 5, 4, 4,
// 27, 21, 21, 21, 21, 21, 9 and 9 nuclides, drawn with the published
// probabilities).  A lookup samples an energy and a material; for each
// nuclide of the material it finds the window holding the energy, starts
// from the window's fit, and adds each pole's term through the Faddeeva
// function w(z) of z = (E - pole) * doppler (the Abrarov-Quine series for
// |z| < 6, a two-term asymptotic form beyond), the total one turned by the
// hard-sphere phase factor of the pole's l; the macroscopic cross sections
// (total, absorption, fission, elastic = total - absorption) are the
// concentration-weighted sums, scaled by a density.  One GPU thread per
// lookup.  Checked against the serial lookup on a sample of lookups; then
// the gradient of J = sum seed * out with respect to the poles, the fits,
// the concentrations and the density: Zymase's (__enzyme_autodiff of the
// thread's body) against a hand-written adjoint kernel (w is holomorphic:
// the adjoint of z is conj(w'(z)) times that of w), and that against
// central differences over a sample of lookups (sizes up to 10^7).
// Usage: rsbench-faddeeva [lookups [reps [poles [windows]]]] (reps 0: the
// primal only; poles and windows per nuclide on average: 1000 and 100)
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "bench.h"
#include <cstring>

enum { NUC = 68, MATS = 12, MAXN = 34, NL = 4, XS = 4 };
static const int n_nucs[MATS] = {34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9};
__constant__ double mat_cdf_d[MATS];
static double mat_cdf_h[MATS];
static const double mat_p[MATS] = {0.140, 0.052, 0.275, 0.134, 0.154, 0.064,
                                   0.066, 0.055, 0.008, 0.015, 0.025, 0.013};

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
__host__ __device__ static Cx cadd(Cx a, Cx b) {
  return {a.re + b.re, a.im + b.im};
}
__host__ __device__ static Cx cconj(Cx a) { return {a.re, -a.im}; }
__host__ __device__ static Cx scale(double s, Cx a) {
  return {s * a.re, s * a.im};
}

/* A pole: its position and its residues (total, absorption, fission). */
struct Pole {
  Cx ea, rt, ra, rf;
};
struct Data {
  int maxp, maxw;     /* the per-nuclide strides of poles and windows */
  const int *nwin;    /* windows of each nuclide */
  const int *span;    /* each window's first and end pole */
  const double *fit;  /* each window's background (total, abs., fission) */
  const Pole *poles;  /* NUC * maxp */
  const int *lval;    /* each pole's l */
  const double *k0rs; /* each nuclide's radius factor per l */
  const int *nn, *mats;
};

/* The Abrarov-Quine series (tau_m = 12, 10 terms): a_n = 2 sqrt(pi) / 12
 * exp(-n^2 pi^2 / 144), and n^2 pi^2. */
#define ZY_FADDEEVA_TABLES                                                     \
  const double an[10] = {0.27584023329217705,   0.22457395522461585,           \
                         0.1594149382739117,    0.098665766415454187,          \
                         0.053244140787639407,  0.02505215000539365,           \
                         0.010277465670539537,  0.0036761643328448467,         \
                         0.0011464936412422331, 0.00031175701504619765};       \
  const double n2pi2[10] = {9.869604401089358,  39.478417604357432,            \
                            88.826439609804225, 157.91367041742973,            \
                            246.74011002723395, 355.3057584392169,             \
                            483.61061565337855, 631.65468166971891,            \
                            799.437956488238,   986.96044010893581};
/* 144 / sqrt(pi); the asymptotic form's constants. */
#define ZY_P 81.24330003087691
#define ZY_A 0.5124242
#define ZY_B 0.2752551
#define ZY_C 0.05176536
#define ZY_D 2.724745

/* w(z) = exp(-z^2) erfc(-iz): for |z| < 6, i (1 - E) / (12 z) + i 144 z /
 * sqrt(pi) sum_n a_n ((-1)^n E - 1) / (n^2 pi^2 - 144 z^2), E = exp(12 i
 * z); beyond, z (i a / (z^2 - b) + i c / (z^2 - d)). */
__host__ __device__ static Cx faddeeva(Cx z) {
  Cx z2 = cmul(z, z);
  if (z.re * z.re + z.im * z.im >= 36)
    return cmul(z, cadd(cdiv({0, ZY_A}, {z2.re - ZY_B, z2.im}),
                        cdiv({0, ZY_C}, {z2.re - ZY_D, z2.im})));
  ZY_FADDEEVA_TABLES
  double m = exp(-12 * z.im);
  Cx e = {m * cos(12 * z.re), m * sin(12 * z.re)}, s = {0, 0};
  Cx w = cdiv({e.im, 1 - e.re}, scale(12, z));
  double sign = -1;
  for (int n = 0; n < 10; n++, sign = -sign) {
    Cx top = {sign * e.re - 1, sign * e.im};
    Cx bot = {n2pi2[n] - 144 * z2.re, -144 * z2.im};
    s = cadd(s, scale(an[n], cdiv(top, bot)));
  }
  return cadd(w, cmul({0, ZY_P}, cmul(z, s)));
}

/* w'(z) of the same two forms (the hand-written adjoint's). */
__device__ static Cx faddeeva_d(Cx z) {
  Cx z2 = cmul(z, z);
  if (z.re * z.re + z.im * z.im >= 36) {
    Cx q1 = {z2.re - ZY_B, z2.im}, q2 = {z2.re - ZY_D, z2.im};
    Cx t1 = cdiv({0, ZY_A}, q1), t2 = cdiv({0, ZY_C}, q2);
    Cx tz = scale(2, z);
    Cx d = cadd(cdiv(cmul(t1, tz), q1), cdiv(cmul(t2, tz), q2));
    Cx zd = cmul(z, d);
    return {t1.re + t2.re - zd.re, t1.im + t2.im - zd.im};
  }
  ZY_FADDEEVA_TABLES
  double m = exp(-12 * z.im);
  Cx e = {m * cos(12 * z.re), m * sin(12 * z.re)}, s = {0, 0}, sd = {0, 0};
  /* (i (1 - E) / (12 z))' = E / z - i (1 - E) / (12 z^2) */
  Cx wd = cadd(cdiv(e, z), scale(-1, cdiv({e.im, 1 - e.re}, scale(12, z2))));
  double sign = -1;
  for (int n = 0; n < 10; n++, sign = -sign) {
    Cx top = {sign * e.re - 1, sign * e.im};
    Cx bot = {n2pi2[n] - 144 * z2.re, -144 * z2.im};
    s = cadd(s, scale(an[n], cdiv(top, bot)));
    /* (top / bot)' = (12 i sign E bot + 288 z top) / bot^2 */
    Cx num = cadd(cmul(cmul({0, 12 * sign}, e), bot), cmul(scale(288, z), top));
    sd = cadd(sd, scale(an[n], cdiv(num, cmul(bot, bot))));
  }
  return cadd(wd, cmul({0, ZY_P}, cadd(s, cmul(z, sd))));
}

__host__ __device__ static unsigned long long lcg(unsigned long long s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}
__host__ __device__ static double unit(unsigned long long s) {
  return (double)(s >> 11) * (1.0 / 9007199254740992.0);
}

/* The energy and material of lookup i. */
__host__ __device__ static void sample(long i, const double *cdf, double *e,
                                       int *mat) {
  unsigned long long s = lcg(lcg((unsigned long long)i * 2 + 29));
  *e = unit(s);
  double r = unit(lcg(s));
  int m = 0;
  while (m < MATS - 1 && r >= cdf[m])
    m++;
  *mat = m;
}

/* The hard-sphere phase factors exp(-2i phi_l), l = 0..3, of a nuclide at
 * sqrt(E) = sq. */
__host__ __device__ static void phase_factors(const double *k0rs, double sq,
                                              Cx *tf) {
  for (int l = 0; l < NL; l++) {
    double r = k0rs[l] * sq, phi = r;
    if (l == 1)
      phi -= atan(r);
    else if (l == 2)
      phi -= atan(3 * r / (3 - r * r));
    else if (l == 3)
      phi -= atan(r * (15 - r * r) / (15 - 6 * r * r));
    tf[l] = {cos(2 * phi), -sin(2 * phi)};
  }
}

/* The window of nuclide nuc holding energy e. */
__host__ __device__ static long window_of(Data d, int nuc, double e) {
  int nw = d.nwin[nuc], w = (int)(e * nw);
  return (long)nuc * d.maxw + (w == nw ? w - 1 : w);
}

/* The micro cross sections of nuclide nuc at energy e: total, absorption,
 * fission, elastic. */
__host__ __device__ __forceinline__ static void micro(Data d, int nuc, double e,
                                                      double *xs) {
  Cx tf[NL];
  phase_factors(d.k0rs + nuc * NL, sqrt(e), tf);
  long w = window_of(d, nuc, e);
  const double *f = d.fit + w * 3;
  double t = e * f[0], a = e * f[1], fi = e * f[2];
  for (int p = d.span[2 * w]; p < d.span[2 * w + 1]; p++) {
    const Pole &q = d.poles[(long)nuc * d.maxp + p];
    Cx wz = faddeeva({(e - q.ea.re) * 0.5, -q.ea.im * 0.5});
    t += cmul(q.rt, cmul(wz, tf[d.lval[(long)nuc * d.maxp + p]])).re;
    a += cmul(q.ra, wz).re;
    fi += cmul(q.rf, wz).re;
  }
  xs[0] = t, xs[1] = a, xs[2] = fi, xs[3] = t - a;
}

/* The macroscopic cross sections of lookup i, times the density, in
 * out[0..XS). */
__host__ __device__ __forceinline__ static void
lookup(long i, Data d, const double *conc, double density, const double *cdf,
       double *out) {
  double e, macro[XS] = {0, 0, 0, 0}, xs[XS];
  int mat;
  sample(i, cdf, &e, &mat);
  for (int k = 0; k < d.nn[mat]; k++) {
    micro(d, d.mats[mat * MAXN + k], e, xs);
    for (int x = 0; x < XS; x++)
      macro[x] += conc[mat * MAXN + k] * xs[x];
  }
  for (int x = 0; x < XS; x++)
    out[x] = density * macro[x];
}

__global__ void lookups(long n, Data d, const double *conc, double density,
                        double *out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, d, conc, density, mat_cdf_d, out + i * XS);
}

/* The thread's lookup, the body that Zymase differentiates (the density
 * in memory: its adjoint is a sum over the grid). */
__device__ void
lookup_thread(long n, int maxp, int maxw, const int *__restrict__ nwin,
              const int *__restrict__ span, const double *__restrict__ fit,
              const Pole *__restrict__ poles, const int *__restrict__ lval,
              const double *__restrict__ k0rs, const int *__restrict__ nn,
              const int *__restrict__ mats, const double *__restrict__ conc,
              const double *__restrict__ density, double *__restrict__ out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, Data{maxp, maxw, nwin, span, fit, poles, lval, k0rs, nn, mats},
           conc, *density, mat_cdf_d, out + i * XS);
}

/* d/d(poles, fit, conc, density) of sum dout * out, added to the shadows;
 * dout consumed (zeroed), as Enzyme does. */
__global__ void lookups_zymase(long n, Data d, Pole *dpoles, double *dfit,
                               const double *conc, double *dconc,
                               const double *density, double *ddensity,
                               double *out, double *dout) {
  __enzyme_autodiff((void *)lookup_thread, enzyme_const, n, enzyme_const,
                    d.maxp, enzyme_const, d.maxw, enzyme_const, d.nwin,
                    enzyme_const, d.span, enzyme_dup, d.fit, dfit, enzyme_dup,
                    d.poles, dpoles, enzyme_const, d.lval, enzyme_const, d.k0rs,
                    enzyme_const, d.nn, enzyme_const, d.mats, enzyme_dup, conc,
                    dconc, enzyme_dup, density, ddensity, enzyme_dup, out,
                    dout);
}
/* The same with respect to the density only (the reduction). */
__global__ void lookups_zymase_density(long n, Data d, const double *conc,
                                       const double *density, double *ddensity,
                                       double *out, double *dout) {
  __enzyme_autodiff((void *)lookup_thread, enzyme_const, n, enzyme_const,
                    d.maxp, enzyme_const, d.maxw, enzyme_const, d.nwin,
                    enzyme_const, d.span, enzyme_const, d.fit, enzyme_const,
                    d.poles, enzyme_const, d.lval, enzyme_const, d.k0rs,
                    enzyme_const, d.nn, enzyme_const, d.mats, enzyme_const,
                    conc, enzyme_dup, density, ddensity, enzyme_dup, out, dout);
}

/* The hand-written adjoint: per nuclide the micro cross sections again,
 * then the window's fit and each pole's terms reversed (Re(a b): the
 * adjoint of a is g conj(b)), atomic adds into the poles, fits and
 * concentrations read; the density's adjoint summed over the block. */
__global__ void lookups_adjoint(long n, Data d, Pole *dpoles, double *dfit,
                                const double *conc, double *dconc,
                                const double *density, double *ddensity,
                                double *dout) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  double dd = 0;
  if (i < n) {
    double e, rho = *density, ob[XS], xs[XS];
    int mat;
    sample(i, mat_cdf_d, &e, &mat);
    for (int x = 0; x < XS; x++)
      ob[x] = dout[i * XS + x], dout[i * XS + x] = 0;
    for (int k = 0; k < d.nn[mat]; k++) {
      int nuc = d.mats[mat * MAXN + k];
      double c = conc[mat * MAXN + k], dc = 0;
      micro(d, nuc, e, xs);
      for (int x = 0; x < XS; x++)
        dd += ob[x] * c * xs[x], dc += rho * ob[x] * xs[x];
      atomicAdd(&dconc[mat * MAXN + k], dc);
      /* The micro cross sections' adjoints (elastic = total - abs.). */
      double gt = c * rho * (ob[0] + ob[3]), ga = c * rho * (ob[1] - ob[3]);
      double gf = c * rho * ob[2];
      Cx tf[NL];
      phase_factors(d.k0rs + nuc * NL, sqrt(e), tf);
      long w = window_of(d, nuc, e);
      atomicAdd(&dfit[w * 3], gt * e);
      atomicAdd(&dfit[w * 3 + 1], ga * e);
      atomicAdd(&dfit[w * 3 + 2], gf * e);
      for (int p = d.span[2 * w]; p < d.span[2 * w + 1]; p++) {
        long at = (long)nuc * d.maxp + p;
        const Pole &q = d.poles[at];
        Pole &dq = dpoles[at];
        Cx z = {(e - q.ea.re) * 0.5, -q.ea.im * 0.5}, wz = faddeeva(z);
        Cx f = tf[d.lval[at]], rtb = scale(gt, cconj(cmul(wz, f)));
        Cx rab = scale(ga, cconj(wz)), rfb = scale(gf, cconj(wz));
        Cx wb = cadd(scale(gt, cconj(cmul(q.rt, f))),
                     cadd(scale(ga, cconj(q.ra)), scale(gf, cconj(q.rf))));
        Cx zb = cmul(cconj(faddeeva_d(z)), wb);
        atomicAdd(&dq.rt.re, rtb.re), atomicAdd(&dq.rt.im, rtb.im);
        atomicAdd(&dq.ra.re, rab.re), atomicAdd(&dq.ra.im, rab.im);
        atomicAdd(&dq.rf.re, rfb.re), atomicAdd(&dq.rf.im, rfb.im);
        atomicAdd(&dq.ea.re, -0.5 * zb.re), atomicAdd(&dq.ea.im, -0.5 * zb.im);
      }
    }
  }
  block_add(ddensity, dd);
}

/* dJ/dp by central differences over the sampled lookups (J = sum seed *
 * out of those), term by term. */
static Fd central(long n, long stride, Data d, double *conc, double *density,
                  double *p, const double *seed, double *op, double *om) {
  const double h = 1e-7 * std::fmax(1.0, std::fabs(*p)), keep = *p;
  for (int side = 0; side < 2; side++) {
    *p = side ? keep - h : keep + h;
    for (long i = 0, j = 0; i < n; i += stride, j++)
      lookup(i, d, conc, *density, mat_cdf_h, (side ? om : op) + j * XS);
  }
  *p = keep;
  return fd_terms(seed, op, om, ((n + stride - 1) / stride) * XS, h);
}

static void gradients(long n, Data h, Data dv, long np, long nf, double *conc,
                      double density, int reps) {
  long nc = MATS * MAXN, no = n * XS;
  long stride = sample_stride(n), ns = (n + stride - 1) / stride;
  size_t psize = sizeof(Pole) * np, fsize = sizeof(double) * nf;
  size_t osize = sizeof(double) * no;
  double *seed = (double *)malloc(osize), *sseed = (double *)malloc(osize);
  double *op = (double *)malloc(sizeof(double) * ns * XS);
  double *om = (double *)malloc(sizeof(double) * ns * XS);
  double *ss = (double *)malloc(sizeof(double) * ns * XS);
  Pole *pg[3];
  double *fg[3], cg[3][MATS * MAXN], dz, dh, ds, dd1;
  for (int k = 0; k < 3; k++)
    pg[k] = (Pole *)malloc(psize), fg[k] = (double *)malloc(fsize);
  for (long k = 0; k < no; k++) {
    seed[k] = cos(0.37 * k);
    sseed[k] = (k / XS) % stride ? 0 : seed[k];
    if ((k / XS) % stride == 0)
      ss[(k / XS) / stride * XS + k % XS] = seed[k];
  }
  Pole *d_dpoles;
  double *d_dfit, *d_conc, *d_dconc, *d_den, *d_dden, *d_out, *d_dout;
  CK(cudaMalloc(&d_dpoles, psize));
  CK(cudaMalloc(&d_dfit, fsize));
  CK(cudaMalloc(&d_conc, sizeof(double) * nc));
  CK(cudaMalloc(&d_dconc, sizeof(double) * nc));
  CK(cudaMalloc(&d_den, sizeof(double)));
  CK(cudaMalloc(&d_dden, sizeof(double)));
  CK(cudaMalloc(&d_out, osize));
  CK(cudaMalloc(&d_dout, osize));
  CK(cudaMemcpy(d_conc, conc, sizeof(double) * nc, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_den, &density, sizeof(double), cudaMemcpyHostToDevice));
  long blocks = (n + 127) / 128;
  Counts at[3];
  /* 0 Zymase, 1 Zymase (density only), 2 hand-written, 3 hand-written on
   * the sampled seed (for the finite differences, when sampled). */
  for (int which = 0; which < (stride > 1 ? 4 : 3); which++) {
    CK(cudaMemcpy(d_dout, which == 3 ? sseed : seed, osize,
                  cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dpoles, 0, psize));
    CK(cudaMemset(d_dfit, 0, fsize));
    CK(cudaMemset(d_dconc, 0, sizeof(double) * nc));
    CK(cudaMemset(d_dden, 0, sizeof(double)));
    Counts a0 = counts_now();
    if (which == 0)
      lookups_zymase<<<blocks, 128>>>(n, dv, d_dpoles, d_dfit, d_conc, d_dconc,
                                      d_den, d_dden, d_out, d_dout);
    else if (which == 1)
      lookups_zymase_density<<<blocks, 128>>>(n, dv, d_conc, d_den, d_dden,
                                              d_out, d_dout);
    else
      lookups_adjoint<<<blocks, 128>>>(n, dv, d_dpoles, d_dfit, d_conc, d_dconc,
                                       d_den, d_dden, d_dout);
    CK(cudaDeviceSynchronize());
    if (which < 3)
      at[which] = counts_since(a0);
    int g = which == 0 ? 0 : which == 2 ? 1 : 2;
    if (which != 1) {
      CK(cudaMemcpy(pg[g], d_dpoles, psize, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(fg[g], d_dfit, fsize, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(cg[g], d_dconc, sizeof(double) * nc,
                    cudaMemcpyDeviceToHost));
    }
    double *dst = which == 0 ? &dz : which == 1 ? &dd1 : which == 2 ? &dh : &ds;
    CK(cudaMemcpy(dst, d_dden, sizeof(double), cudaMemcpyDeviceToHost));
  }
  grad_agree("rsbench-faddeeva dJ/dpoles", (double *)pg[0], (double *)pg[1],
             np * 8, 1e-10);
  grad_agree("rsbench-faddeeva dJ/dfit", fg[0], fg[1], nf, 1e-12);
  grad_agree("rsbench-faddeeva dJ/dconc", cg[0], cg[1], nc, 1e-12);
  grad_agree("rsbench-faddeeva dJ/ddensity", &dz, &dh, 1, 1e-10);
  grad_agree("rsbench-faddeeva dJ/ddensity (density only)", &dd1, &dh, 1,
             1e-10);
  if (stride == 1)
    memcpy(pg[2], pg[1], psize), memcpy(fg[2], fg[1], fsize),
        memcpy(cg[2], cg[1], sizeof cg[1]), ds = dh;
  /* Central differences of the sampled J: the density, the largest
   * dJ/dconc, dJ/dfit, residue and position derivatives. */
  Pole *poles = (Pole *)h.poles, *ps = pg[2];
  double *fit = (double *)h.fit;
  fd_check("rsbench-faddeeva dJ/ddensity", ds,
           central(n, stride, h, conc, &density, &density, ss, op, om), 1e-6);
  long kc = argmax_abs(cg[2], nc), kf = argmax_abs(fg[2], nf);
  long kr = argmax_abs((double *)ps, np * 8), kp = 0;
  for (long k = 1; k < np; k++)
    if (fabs(ps[k].ea.re) > fabs(ps[kp].ea.re))
      kp = k;
  fd_check("rsbench-faddeeva dJ/dconc", cg[2][kc],
           central(n, stride, h, conc, &density, &conc[kc], ss, op, om), 1e-6);
  fd_check("rsbench-faddeeva dJ/dfit", fg[2][kf],
           central(n, stride, h, conc, &density, &fit[kf], ss, op, om), 1e-6);
  fd_check(
      "rsbench-faddeeva dJ/dpoles", ((double *)ps)[kr],
      central(n, stride, h, conc, &density, &((double *)poles)[kr], ss, op, om),
      1e-5);
  fd_check("rsbench-faddeeva dJ/dpoles (position)", ps[kp].ea.re,
           central(n, stride, h, conc, &density, &poles[kp].ea.re, ss, op, om),
           1e-5);
  auto reseed = [&] {
    CK(cudaMemcpy(d_dout, seed, osize, cudaMemcpyHostToDevice));
  };
  double primal = best_ms(reps, [&] {
    lookups<<<blocks, 128>>>(n, dv, d_conc, density, d_out);
    CK(cudaDeviceSynchronize());
  });
  double zy = best_ms_seeded(reps, reseed, [&] {
    lookups_zymase<<<blocks, 128>>>(n, dv, d_dpoles, d_dfit, d_conc, d_dconc,
                                    d_den, d_dden, d_out, d_dout);
    CK(cudaDeviceSynchronize());
  });
  double hand = best_ms_seeded(reps, reseed, [&] {
    lookups_adjoint<<<blocks, 128>>>(n, dv, d_dpoles, d_dfit, d_conc, d_dconc,
                                     d_den, d_dden, d_dout);
    CK(cudaDeviceSynchronize());
  });
  grad_report("rsbench-faddeeva", primal, zy, hand, at[0], at[1], at[2]);
  cudaFree(d_dpoles), cudaFree(d_dfit), cudaFree(d_conc), cudaFree(d_dconc);
  cudaFree(d_den), cudaFree(d_dden), cudaFree(d_out), cudaFree(d_dout);
  free(seed), free(sseed), free(op), free(om), free(ss);
  for (int k = 0; k < 3; k++)
    free(pg[k]), free(fg[k]);
}

/* A device copy of n elements of `h`. */
template <typename T> static T *to_device(const T *h, long n) {
  T *d;
  CK(cudaMalloc(&d, sizeof(T) * n));
  CK(cudaMemcpy(d, h, sizeof(T) * n, cudaMemcpyHostToDevice));
  return d;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  int avgp = argc > 3 ? atoi(argv[3]) : 1000;
  int avgw = argc > 4 ? atoi(argv[4]) : 100;
  int npol[NUC], nwin[NUC], maxp = 0, maxw = 0;
  int mats[MATS * MAXN] = {0}, nn[MATS];
  double conc[MATS * MAXN] = {0}, k0rs[NUC * NL], density = 1.3, acc = 0;
  unsigned long long s = 3;
  for (int m = 0; m < MATS; m++)
    nn[m] = n_nucs[m], acc += mat_p[m], mat_cdf_h[m] = acc;
  for (int u = 0; u < NUC; u++) {
    npol[u] = avgp / 2 + (int)(unit(s = lcg(s)) * avgp);
    nwin[u] = avgw / 2 + (int)(unit(s = lcg(s)) * avgw);
    if (nwin[u] > npol[u])
      nwin[u] = npol[u];
    maxp = npol[u] > maxp ? npol[u] : maxp;
    maxw = nwin[u] > maxw ? nwin[u] : maxw;
    for (int l = 0; l < NL; l++)
      k0rs[u * NL + l] = unit(s = lcg(s)) * 3;
  }
  long np = (long)NUC * maxp, nw = (long)NUC * maxw, nf = nw * 3;
  Pole *poles = (Pole *)calloc(np, sizeof(Pole));
  int *lval = (int *)calloc(np, sizeof(int));
  int *span = (int *)calloc(2 * nw, sizeof(int));
  double *fit = (double *)calloc(nf, sizeof(double));
  /* Poles sorted by energy in [0, 1] below the real axis (z = (E - pole) /
   * 2 above it), random residues; each window the poles of its share of
   * the energies, and a random fit. */
  for (int u = 0; u < NUC; u++) {
    for (int p = 0; p < npol[u]; p++) {
      Pole &q = poles[(long)u * maxp + p];
      q.ea = {(p + unit(s = lcg(s))) / npol[u], -0.05 - unit(s = lcg(s))};
      q.rt = {unit(s = lcg(s)), unit(s = lcg(s)) - 0.5};
      q.ra = {unit(s = lcg(s)), unit(s = lcg(s)) - 0.5};
      q.rf = {unit(s = lcg(s)), unit(s = lcg(s)) - 0.5};
      lval[(long)u * maxp + p] = (int)(unit(s = lcg(s)) * NL);
    }
    for (int w = 0; w < nwin[u]; w++) {
      long at = (long)u * maxw + w;
      span[2 * at] = (int)((long)w * npol[u] / nwin[u]);
      span[2 * at + 1] = (int)((long)(w + 1) * npol[u] / nwin[u]);
      for (int x = 0; x < 3; x++)
        fit[at * 3 + x] = unit(s = lcg(s));
    }
  }
  for (int m = 0; m < MATS; m++)
    for (int k = 0; k < nn[m]; k++) {
      int pick;
      bool again;
      do {
        pick = m == 0 ? k : (int)(unit(s = lcg(s)) * NUC);
        again = false;
        for (int j = 0; j < k; j++)
          again |= mats[m * MAXN + j] == pick;
      } while (again);
      mats[m * MAXN + k] = pick, conc[m * MAXN + k] = unit(s = lcg(s));
    }
  Data h = {maxp, maxw, nwin, span, fit, poles, lval, k0rs, nn, mats};

  long stride = sample_stride(n), ns = (n + stride - 1) / stride;
  double *ref = (double *)malloc(sizeof(double) * ns * XS);
  double *got = (double *)malloc(sizeof(double) * n * XS);
  double t0 = now_ms();
  for (long i = 0, j = 0; i < n; i += stride, j++)
    lookup(i, h, conc, density, mat_cdf_h, ref + j * XS);
  double serial = (now_ms() - t0) * stride;

  Data dv = {maxp,
             maxw,
             to_device(nwin, NUC),
             to_device(span, 2 * nw),
             to_device(fit, nf),
             to_device(poles, np),
             to_device(lval, np),
             to_device(k0rs, NUC * NL),
             to_device(nn, MATS),
             to_device(mats, MATS * MAXN)};
  double *d_conc = to_device(conc, MATS * MAXN), *d_out;
  CK(cudaMalloc(&d_out, sizeof(double) * n * XS));
  CK(cudaMemcpyToSymbol(mat_cdf_d, mat_cdf_h, sizeof mat_cdf_h));
  t0 = now_ms();
  lookups<<<(n + 127) / 128, 128>>>(n, dv, d_conc, density, d_out);
  CK(cudaDeviceSynchronize());
  double gpu = now_ms() - t0;
  CK(cudaMemcpy(got, d_out, sizeof(double) * n * XS, cudaMemcpyDeviceToHost));
  for (long i = 0, j = 0; i < n; i += stride, j++)
    memcpy(got + j * XS, got + i * XS, sizeof(double) * XS);
  agree("rsbench-faddeeva", got, ref, ns * XS, 1e-9);
  report("rsbench-faddeeva", serial, gpu);
  if (reps > 0) /* 0: the primal only */
    gradients(n, h, dv, np, nf, conc, density, reps);
  return 0;
}
