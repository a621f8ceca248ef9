// Gradients through ODE integrators with hundreds of steps: explicit Euler
// and classical RK4 on Lotka-Volterra (state in scalars; state in arrays
// with a noinline right-hand side called four times per step), and RK4 on
// a damped pendulum whose state array is updated in place, with a running
// integral of the angle in the functional and the trajectory kept in a
// malloc'd buffer.  Gradients of a functional of the final state with
// respect to the initial conditions and the parameters, against finite
// differences (relative tolerance) at several initial conditions.
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

/* 500 steps of dt = 0.01.  The gradients reach ~20 and the finite
 * differences agree with them to ~3e-10 relative (zy_check_close scales the
 * tolerance by |want| when it exceeds 1). */
#define STEPS 500
#define TOL 1e-8

/* Lotka-Volterra, p = {a, b, c, d}: x' = a x - b x y, y' = c x y - d y.
 * Explicit Euler with the state in two scalars; J = x_T y_T + x_T^2. */
double euler_lv(const double *y0, const double *p, int steps, double dt) {
  double x = y0[0], y = y0[1];
  for (int i = 0; i < steps; i++) {
    double fx = p[0] * x - p[1] * x * y;
    double fy = p[2] * x * y - p[3] * y;
    x += dt * fx;
    y += dt * fy;
  }
  return x * y + x * x;
}

__attribute__((noinline)) static void lv_rhs(const double *s, const double *p,
                                             double *out) {
  out[0] = p[0] * s[0] - p[1] * s[0] * s[1];
  out[1] = p[2] * s[0] * s[1] - p[3] * s[1];
}

/* RK4 with the state and the stages in local arrays and the right-hand
 * side out of line. */
double rk4_lv(const double *y0, const double *p, int steps, double dt) {
  double s[2] = {y0[0], y0[1]}, k1[2], k2[2], k3[2], k4[2], tmp[2];
  for (int i = 0; i < steps; i++) {
    lv_rhs(s, p, k1);
    for (int j = 0; j < 2; j++)
      tmp[j] = s[j] + 0.5 * dt * k1[j];
    lv_rhs(tmp, p, k2);
    for (int j = 0; j < 2; j++)
      tmp[j] = s[j] + 0.5 * dt * k2[j];
    lv_rhs(tmp, p, k3);
    for (int j = 0; j < 2; j++)
      tmp[j] = s[j] + dt * k3[j];
    lv_rhs(tmp, p, k4);
    for (int j = 0; j < 2; j++)
      s[j] += dt / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
  }
  return s[0] * s[1] + s[0] * s[0];
}

/* Damped pendulum, p = {g / L, damping}: theta'' = -g/L sin(theta) -
 * damping theta'.  RK4 on the caller's state array (overwritten), the
 * trajectory of theta stored in a heap buffer, and J = theta_T^2 +
 * omega_T + dt * sum theta_i^2 computed from the buffer afterwards. */
double rk4_pendulum(double *s, const double *p, int steps, double dt) {
  double *traj = malloc((steps + 1) * sizeof(double));
  traj[0] = s[0];
  for (int i = 0; i < steps; i++) {
    double th = s[0], om = s[1];
    double a1 = om, b1 = -p[0] * sin(th) - p[1] * om;
    double a2 = om + 0.5 * dt * b1;
    double b2 = -p[0] * sin(th + 0.5 * dt * a1) - p[1] * a2;
    double a3 = om + 0.5 * dt * b2;
    double b3 = -p[0] * sin(th + 0.5 * dt * a2) - p[1] * a3;
    double a4 = om + dt * b3;
    double b4 = -p[0] * sin(th + dt * a3) - p[1] * a4;
    s[0] = th + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
    s[1] = om + dt / 6 * (b1 + 2 * b2 + 2 * b3 + b4);
    traj[i + 1] = s[0];
  }
  double integral = 0;
  for (int i = 0; i <= steps; i++)
    integral += traj[i] * traj[i];
  free(traj);
  return s[0] * s[0] + s[1] + dt * integral;
}
static double rk4_pendulum_ref(const double *s0, const double *p, int steps,
                               double dt) {
  double s[2] = {s0[0], s0[1]};
  return rk4_pendulum(s, p, steps, dt);
}

/* d/dy0 and d/dp from __enzyme_autodiff(f, dup y0, dup p, steps, dt)
 * against finite differences; ref evaluates f without side effects. */
#define CHECK_ODE(f, ref, y0, np, p, steps, dt)                                \
  do {                                                                         \
    double y_[2] = {y0[0], y0[1]}, dy_[2] = {0}, dp_[4] = {0}, fy_[2], fp_[4]; \
    char what_[64];                                                            \
    __enzyme_autodiff((void *)f, enzyme_dup, y_, dy_, enzyme_dup, p, dp_,      \
                      enzyme_const, steps, enzyme_const, dt);                  \
    for (int k = 0; k < 2; k++)                                                \
      fy_[k] = ZY_DIFF_AT(y0, k, ref(y0, p, steps, dt));                       \
    for (int k = 0; k < np; k++)                                               \
      fp_[k] = ZY_DIFF_AT(p, k, ref(y0, p, steps, dt));                        \
    snprintf(what_, sizeof what_, "%s(steps=%d)/dy0", #f, steps);              \
    zy_check_array(what_, dy_, fy_, 2, TOL);                                   \
    snprintf(what_, sizeof what_, "%s(steps=%d)/dp", #f, steps);               \
    zy_check_array(what_, dp_, fp_, np, TOL);                                  \
  } while (0)

int main(void) {
  double lv_y0[3][2] = {{1.0, 0.5}, {2.0, 1.2}, {0.6, 1.8}};
  double lv_p[4] = {1.1, 0.4, 0.3, 0.9};
  double pe_y0[3][2] = {{0.5, 0.0}, {2.5, -0.3}, {-1.2, 1.5}};
  double pe_p[2] = {9.81, 0.15};
  int steps[] = {0, 1, STEPS};
  for (int q = 0; q < 3; q++)
    for (int r = 0; r < 3; r++) {
      CHECK_ODE(euler_lv, euler_lv, lv_y0[r], 4, lv_p, steps[q], 0.01);
      CHECK_ODE(rk4_lv, rk4_lv, lv_y0[r], 4, lv_p, steps[q], 0.01);
      CHECK_ODE(rk4_pendulum, rk4_pendulum_ref, pe_y0[r], 2, pe_p, steps[q],
                0.01);
    }
  return zy_report();
}
