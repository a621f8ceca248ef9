// lbm.cu - a lattice Boltzmann D2Q9 step (BGK collision, pull streaming,
// periodic box): one GPU thread per cell, 16x16 blocks, the lattice's
// velocities and weights in __constant__ memory; checked against the
// serial step.  Then the gradient of one step, J = sum seed * fout, with
// respect to the distributions fin (each cell's thread reads its
// neighbours: scatter-adds) and the relaxation rate omega (read by every
// thread: a reduction): Zymase's (__enzyme_autodiff of the thread's body)
// against a hand-written adjoint kernel and central finite differences.
// Usage: lbm [nx ny steps [reps]] (reps 0: the primal only)
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "bench.h"

__constant__ int cx_d[9], cy_d[9];
__constant__ double w_d[9];
static const int cx_h[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int cy_h[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const double w_h[9] = {4. / 9,  1. / 9,  1. / 9,  1. / 9, 1. / 9,
                              1. / 36, 1. / 36, 1. / 36, 1. / 36};

/* One cell's nine new distributions, out[q * stride]: pull f from the
 * neighbours, relax towards equilibrium (T: double; long double in the
 * finite differences with respect to omega). */
template <typename T>
__host__ __device__ static void
relax(const double *fin, int x, int y, int nx, int ny, T omega, const int *cx,
      const int *cy, const double *w, T *out, long stride) {
  T f[9], rho = 0, ux = 0, uy = 0;
  long n = (long)nx * ny;
  for (int q = 0; q < 9; q++) {
    int xs = (x - cx[q] + nx) % nx, ys = (y - cy[q] + ny) % ny;
    f[q] = fin[q * n + (long)ys * nx + xs];
    rho += f[q], ux += f[q] * cx[q], uy += f[q] * cy[q];
  }
  ux /= rho, uy /= rho;
  T uu = 1.5 * (ux * ux + uy * uy);
  for (int q = 0; q < 9; q++) {
    T cu = 3 * (cx[q] * ux + cy[q] * uy);
    T feq = w[q] * rho * (1 + cu + 0.5 * cu * cu - uu);
    out[q * stride] = f[q] - omega * (f[q] - feq);
  }
}

/* One cell of the step. */
__host__ __device__ static void cell(const double *fin, double *fout, int x,
                                     int y, int nx, int ny, double omega,
                                     const int *cx, const int *cy,
                                     const double *w) {
  long n = (long)nx * ny;
  relax(fin, x, y, nx, ny, omega, cx, cy, w, fout + (long)y * nx + x, n);
}

__global__ void step(const double *fin, double *fout, int nx, int ny,
                     double omega) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny)
    cell(fin, fout, x, y, nx, ny, omega, cx_d, cy_d, w_d);
}

/* The thread's cell, the body that Zymase differentiates (omega in
 * memory: its adjoint is a sum over the grid). */
__device__ void cell_thread(const double *__restrict__ fin,
                            double *__restrict__ fout,
                            const double *__restrict__ omega, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny)
    cell(fin, fout, x, y, nx, ny, *omega, cx_d, cy_d, w_d);
}

/* d/d(fin, omega) of sum dfout * fout, added to dfin and *domega; dfout
 * consumed (zeroed), as Enzyme does. */
__global__ void step_zymase(const double *fin, double *dfin, double *fout,
                            double *dfout, const double *omega, double *domega,
                            int nx, int ny) {
  __enzyme_autodiff((void *)cell_thread, enzyme_dup, fin, dfin, enzyme_dup,
                    fout, dfout, enzyme_dup, omega, domega, enzyme_const, nx,
                    enzyme_const, ny);
}
/* The same with respect to omega only (the reduction-shaped part). */
__global__ void step_zymase_omega(const double *fin, double *fout,
                                  double *dfout, const double *omega,
                                  double *domega, int nx, int ny) {
  __enzyme_autodiff((void *)cell_thread, enzyme_const, fin, enzyme_dup, fout,
                    dfout, enzyme_dup, omega, domega, enzyme_const, nx,
                    enzyme_const, ny);
}

/* The hand-written adjoint: pull streaming is a permutation, so each
 * thread pushes its cell's adjoints back to the cells it read with plain
 * adds; omega's adjoint is summed over the block (block_add). */
__global__ void step_adjoint(const double *fin, double *dfin, double *dfout,
                             const double *omega, double *domega, int nx,
                             int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  double dom = 0;
  if (x < nx && y < ny) {
    long n = (long)nx * ny, c = (long)y * nx + x, at[9];
    double f[9], rho = 0, mx = 0, my = 0, om = *omega;
    for (int q = 0; q < 9; q++) {
      int xs = (x - cx_d[q] + nx) % nx, ys = (y - cy_d[q] + ny) % ny;
      at[q] = q * n + (long)ys * nx + xs;
      f[q] = fin[at[q]];
      rho += f[q], mx += f[q] * cx_d[q], my += f[q] * cy_d[q];
    }
    double ux = mx / rho, uy = my / rho, uu = 1.5 * (ux * ux + uy * uy);
    double fb[9], rhob = 0, uxb = 0, uyb = 0, uub = 0;
    for (int q = 0; q < 9; q++) {
      double cu = 3 * (cx_d[q] * ux + cy_d[q] * uy);
      double p = 1 + cu + 0.5 * cu * cu - uu, feq = w_d[q] * rho * p;
      double g = dfout[q * n + c];
      dfout[q * n + c] = 0;
      fb[q] = (1 - om) * g;
      dom -= (f[q] - feq) * g;
      double feqb = om * g, cub = w_d[q] * rho * (1 + cu) * feqb;
      rhob += w_d[q] * p * feqb;
      uub -= w_d[q] * rho * feqb;
      uxb += 3 * cx_d[q] * cub, uyb += 3 * cy_d[q] * cub;
    }
    uxb += 3 * ux * uub, uyb += 3 * uy * uub;
    rhob -= (uxb * ux + uyb * uy) / rho;
    for (int q = 0; q < 9; q++)
      dfin[at[q]] += fb[q] + rhob + (uxb * cx_d[q] + uyb * cy_d[q]) / rho;
  }
  block_add(domega, dom);
}

/* dJ/d(fin[k]) (k < 0: dJ/domega), J = sum seed * fout of one serial
 * step, by central differences taken term by term (fd_terms): for fin[k]
 * only the 3 x 3 cells around k's site read it; for omega every cell
 * does, and the differences are taken in long double: the sum cancels
 * (the mass sum_q (f_q - feq_q) of a cell is 0), and at 512^2 cells the
 * rounding of 2.4 million double differences (about 1e-17 / 2h each) made
 * a relative 2e-5 of dJ/domega, more than the tolerance. */
static Fd central(double *fin, double *fp, double *fm, const double *seed,
                  int nx, int ny, double omega, long k) {
  long n = (long)nx * ny;
  if (k < 0) {
    const long double h = 1e-6;
    long double d = 0, mag = 0, op[9], om[9];
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        relax(fin, x, y, nx, ny, omega + h, cx_h, cy_h, w_h, op, 1);
        relax(fin, x, y, nx, ny, omega - h, cx_h, cy_h, w_h, om, 1);
        for (int q = 0; q < 9; q++) {
          long double t = seed[q * n + (long)y * nx + x] * (op[q] - om[q]);
          d += t, mag += t < 0 ? -t : t;
        }
      }
    return {(double)(d / (2 * h)), (double)(mag / (2 * h))};
  }
  double keep = fin[k], sp[81], pp[81], mm[81];
  const double h = 1e-6 * std::fmax(1.0, std::fabs(keep));
  long c = k % n;
  for (int side = 0; side < 2; side++) {
    fin[k] = side ? keep - h : keep + h;
    long j = 0;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int x = (int)((c % nx + dx + nx) % nx);
        int y = (int)((c / nx + dy + ny) % ny);
        cell(fin, fp, x, y, nx, ny, omega, cx_h, cy_h, w_h);
        for (int q = 0; q < 9; q++, j++) {
          long o = q * n + (long)y * nx + x;
          (side ? mm : pp)[j] = fp[o], sp[j] = seed[o];
        }
      }
  }
  fin[k] = keep;
  (void)fm;
  return fd_terms(sp, pp, mm, 81, h);
}

/* The gradients of one step at state `fin` (host): checked, timed, their
 * atomics counted. */
static void gradients(double *fin, int nx, int ny, double omega, int reps) {
  long n = (long)nx * ny, m = 9 * n, size = m * sizeof(double);
  double *seed = (double *)malloc(size), *gz = (double *)malloc(size);
  double *gh = (double *)malloc(size), *tmp = (double *)malloc(size);
  double *tmp2 = (double *)malloc(size);
  for (long k = 0; k < m; k++)
    seed[k] = cos(0.37 * k);
  double *d_fin, *d_dfin, *d_fout, *d_dfout, *d_om, *d_dom, dom_z, dom_h;
  CK(cudaMalloc(&d_fin, size));
  CK(cudaMalloc(&d_dfin, size));
  CK(cudaMalloc(&d_fout, size));
  CK(cudaMalloc(&d_dfout, size));
  CK(cudaMalloc(&d_om, sizeof(double)));
  CK(cudaMalloc(&d_dom, sizeof(double)));
  CK(cudaMemcpy(d_fin, fin, size, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_om, &omega, sizeof(double), cudaMemcpyHostToDevice));
  dim3 block(16, 16), grid((nx + 15) / 16, (ny + 15) / 16);
  Counts at[3];
  for (int which = 0; which < 2; which++) {
    CK(cudaMemcpy(d_dfout, seed, size, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dfin, 0, size));
    CK(cudaMemset(d_dom, 0, sizeof(double)));
    Counts a0 = counts_now();
    if (which == 0)
      step_zymase<<<grid, block>>>(d_fin, d_dfin, d_fout, d_dfout, d_om, d_dom,
                                   nx, ny);
    else
      step_adjoint<<<grid, block>>>(d_fin, d_dfin, d_dfout, d_om, d_dom, nx,
                                    ny);
    CK(cudaDeviceSynchronize());
    at[which == 0 ? 0 : 2] = counts_since(a0);
    CK(cudaMemcpy(which ? gh : gz, d_dfin, size, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(which ? &dom_h : &dom_z, d_dom, sizeof(double),
                  cudaMemcpyDeviceToHost));
  }
  CK(cudaMemcpy(d_dfout, seed, size, cudaMemcpyHostToDevice));
  CK(cudaMemset(d_dom, 0, sizeof(double)));
  Counts a0 = counts_now();
  step_zymase_omega<<<grid, block>>>(d_fin, d_fout, d_dfout, d_om, d_dom, nx,
                                     ny);
  CK(cudaDeviceSynchronize());
  at[1] = counts_since(a0);
  double dom_o;
  CK(cudaMemcpy(&dom_o, d_dom, sizeof(double), cudaMemcpyDeviceToHost));
  grad_agree("lbm dJ/dfin", gz, gh, m, 1e-12);
  grad_agree("lbm dJ/domega", &dom_z, &dom_h, 1, 1e-10);
  grad_agree("lbm dJ/domega (omega only)", &dom_o, &dom_h, 1, 1e-10);
  /* Central differences: omega, the largest dJ/dfin and two others. */
  fd_check("lbm dJ/domega", dom_h,
           central(fin, tmp, tmp2, seed, nx, ny, omega, -1), 1e-6);
  long pick[3] = {argmax_abs(gh, m), m / 3 + 7, m - 5};
  for (long k : pick)
    fd_check("lbm dJ/dfin", gh[k],
             central(fin, tmp, tmp2, seed, nx, ny, omega, k), 1e-6);
  double primal = best_ms(reps, [&] {
    step<<<grid, block>>>(d_fin, d_fout, nx, ny, omega);
    CK(cudaDeviceSynchronize());
  });
  auto reseed = [&] {
    CK(cudaMemcpy(d_dfout, seed, size, cudaMemcpyHostToDevice));
  };
  double zy = best_ms_seeded(reps, reseed, [&] {
    step_zymase<<<grid, block>>>(d_fin, d_dfin, d_fout, d_dfout, d_om, d_dom,
                                 nx, ny);
    CK(cudaDeviceSynchronize());
  });
  double hand = best_ms_seeded(reps, reseed, [&] {
    step_adjoint<<<grid, block>>>(d_fin, d_dfin, d_dfout, d_om, d_dom, nx, ny);
    CK(cudaDeviceSynchronize());
  });
  grad_report("lbm", primal, zy, hand, at[0], at[1], at[2]);
  cudaFree(d_fin), cudaFree(d_dfin), cudaFree(d_fout), cudaFree(d_dfout);
  cudaFree(d_om), cudaFree(d_dom);
  free(seed), free(gz), free(gh), free(tmp), free(tmp2);
}

int main(int argc, char **argv) {
  int nx = argc > 3 ? atoi(argv[1]) : 128, ny = argc > 3 ? atoi(argv[2]) : 128;
  int steps = argc > 3 ? atoi(argv[3]) : 10;
  long n = (long)nx * ny, size = 9 * n * sizeof(double);
  double *a = (double *)malloc(size), *b = (double *)malloc(size),
         *g = (double *)malloc(size), omega = 1.2;
  for (long c = 0; c < n; c++)
    for (int q = 0; q < 9; q++)
      a[q * n + c] = w_h[q] * (1 + 0.1 * sin(0.01 * c + q));
  double *da, *db;
  CK(cudaMalloc(&da, size));
  CK(cudaMalloc(&db, size));
  CK(cudaMemcpy(da, a, size, cudaMemcpyHostToDevice));
  CK(cudaMemcpyToSymbol(cx_d, cx_h, sizeof cx_h));
  CK(cudaMemcpyToSymbol(cy_d, cy_h, sizeof cy_h));
  CK(cudaMemcpyToSymbol(w_d, w_h, sizeof w_h));

  double t0 = now_ms();
  for (int s = 0; s < steps; s++) {
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++)
        cell(a, b, x, y, nx, ny, omega, cx_h, cy_h, w_h);
    double *t = a;
    a = b, b = t;
  }
  double serial = now_ms() - t0;

  dim3 block(16, 16), grid((nx + 15) / 16, (ny + 15) / 16);
  t0 = now_ms();
  for (int s = 0; s < steps; s++) {
    step<<<grid, block>>>(da, db, nx, ny, omega);
    double *t = da;
    da = db, db = t;
  }
  CK(cudaDeviceSynchronize());
  double gpu = now_ms() - t0;
  CK(cudaMemcpy(g, da, size, cudaMemcpyDeviceToHost));
  agree("lbm", g, a, 9 * n, 1e-12);
  report("lbm", serial, gpu);
  int reps = argc > 4 ? atoi(argv[4]) : 3;
  if (reps > 0) /* 0: the primal only */
    gradients(a, nx, ny, omega, reps);
  return 0;
}
