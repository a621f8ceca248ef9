// C++ the ways real code uses it, differentiated in reverse and forward
// mode against central differences (cases the corner-case hunt found
// right): a global pointer and a global array of structs of pointers set
// by a callee, std::pair and std::tuple of pointers returned, a reference
// to a pointer advanced by a callee, a copy of the argument scaled in
// place by a callee in a loop (refused before a fix of the same series at
// -O1), a static scratch array, a struct of pointers through memcpy, a
// templated std::array matrix passed and returned by value, references,
// std::copy/std::reverse, a template, lambdas capturing by reference and
// by value (mutable), operators on a struct, std::max/min/minmax.
// Without exceptions: calls that may throw are not differentiated yet.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 -fno-exceptions %s -lstdc++ -lm -o %t0 && %t0
// RUN: %clang -O2 -fno-exceptions %s -lstdc++ -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 -fno-exceptions %s -lstdc++ -lm -o %t1 && %t1 %}
#include "fd.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <utility>

extern "C" double __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);
extern "C" int enzyme_dup;

#define N 6
#define NOI __attribute__((noinline))
double *g_ptr;
double g_scale;
struct Two {
  double *a, *b;
};
Two g_twos[2];
NOI void set_gp(double *x) {
  g_ptr = x + 1;
  g_scale = x[0] * 2;
}
NOI double use_gp(int k) { return g_ptr[k] * g_scale; }
double global_ptr(double *x) {
  set_gp(x);
  return use_gp(0) * use_gp(2) + use_gp(4);
}
NOI void store_twos(double *x) {
  g_twos[0] = Two{x, x + 3};
  g_twos[1] = Two{x + 3, x};
}
double global_twos(double *x) {
  store_twos(x);
  double s = 0;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 3; i++)
      s += g_twos[k].a[i] * sin(g_twos[k].b[i]);
  return s;
}
NOI std::pair<double *, double *> pr(double *x) { return {x + 2, x}; }
double pair_ret(double *x) {
  auto [p, q] = pr(x);
  return p[0] * q[1] + p[3] * q[0];
}
NOI std::tuple<double *, int, double> tup(double *x) {
  return {x + 1, 3, x[0] * x[0]};
}
double tuple_ret(double *x) {
  auto [p, n, s] = tup(x);
  double r = s;
  for (int i = 0; i < n; i++)
    r += p[i] * p[i + 1];
  return r;
}
NOI void advance(double *&p, int k) { p += k; }
double ptr_ref(double *x) {
  double *p = x;
  advance(p, 2);
  double s = p[0] * p[1];
  advance(p, 1);
  return s + p[2] * x[0];
}
NOI void scale_inplace(double *p, int n, double s) {
  for (int i = 0; i < n; i++)
    p[i] *= s;
}
double inplace_loop(double *x) {
  double t[N];
  for (int i = 0; i < N; i++)
    t[i] = x[i];
  for (int k = 0; k < 3; k++)
    scale_inplace(t + k, 3, t[k + 3]);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += t[i];
  return s;
}
NOI double scratch_use(const double *x, int k) {
  static double buf[N];
  for (int i = 0; i < N; i++)
    buf[i] = x[i] * (i + k);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += buf[i] * buf[(i + 1) % N];
  return s;
}
double static_scratch(double *x) {
  return scratch_use(x, 1) * scratch_use(x, 2);
}
NOI Two memcpy_two(double *x) {
  Two a = {x, x + 2}, b;
  memcpy(&b, &a, sizeof a);
  return b;
}
double memcpy_struct(double *x) {
  Two t = memcpy_two(x);
  return t.a[1] * t.b[3] + t.b[0];
}
template <int M> struct Mat {
  std::array<double, M * M> a;
  double &operator()(int i, int j) { return a[i * M + j]; }
};
NOI Mat<2> matmul(Mat<2> A, Mat<2> B) {
  Mat<2> C;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      C(i, j) = 0;
      for (int k = 0; k < 2; k++)
        C(i, j) += A(i, k) * B(k, j);
    }
  return C;
}
double mat(double *x) {
  Mat<2> A{{x[0], x[1], x[2], x[3]}}, B{{x[4], x[5], x[1], x[0]}};
  Mat<2> C = matmul(A, B);
  C = matmul(C, A);
  return C(0, 0) * C(1, 1) - C(0, 1) * C(1, 0);
}

struct Vec3 {
  double x, y, z;
  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
};
NOI void addto(double &acc, const double &v) { acc += v * v; }
double refs(double *x) {
  double acc = 0;
  for (int i = 0; i < N; i++)
    addto(acc, x[i]);
  double &r = x[2];
  return acc * r;
}
double arr(double *x) {
  std::array<double, N> a;
  std::copy(x, x + N, a.begin());
  std::reverse(a.begin(), a.end());
  double s = 0;
  for (int i = 0; i < N; i++)
    s += a[i] * x[i];
  return s;
}
template <typename T> NOI T poly(const T *c, int n, T t) {
  T r = 0;
  for (int i = n - 1; i >= 0; i--)
    r = r * t + c[i];
  return r;
}
double templ(double *x) { return poly<double>(x, 4, x[4]) * x[5]; }
double lambda(double *x) {
  double k = x[0];
  auto f = [&](double t) { return std::exp(k * t); };
  auto g = [=](double t) mutable {
    k += t;
    return k * t;
  };
  double s = 0;
  for (int i = 1; i < N; i++)
    s += f(x[i]) + g(x[i]);
  return s;
}
NOI Vec3 cross(const Vec3 &a, const Vec3 &b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double vec3(double *x) {
  Vec3 a{x[0], x[1], x[2]}, b{x[3], x[4], x[5]};
  Vec3 c = cross(a, b) + a * x[1];
  return c.dot(b) + cross(c, a).dot(c);
}
double minmax(double *x) {
  double s = std::max(x[0], x[1]) * std::min(x[2], x[3]);
  auto mm = std::minmax(x[4], x[5]);
  return s + mm.first * mm.second * mm.second;
}

#include "check-modes.h"
MODES(global_ptr)
MODES(global_twos)
MODES(pair_ret)
MODES(tuple_ret)
MODES(ptr_ref)
MODES(inplace_loop)
MODES(static_scratch)
MODES(memcpy_struct)
MODES(mat)
MODES(refs)
MODES(arr)
MODES(templ)
MODES(lambda)
MODES(vec3)
MODES(minmax)

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i + 0.01 * i * i * i;
  check("global_ptr", global_ptr, grad_global_ptr, tan_global_ptr, x);
  check("global_twos", global_twos, grad_global_twos, tan_global_twos, x);
  check("pair_ret", pair_ret, grad_pair_ret, tan_pair_ret, x);
  check("tuple_ret", tuple_ret, grad_tuple_ret, tan_tuple_ret, x);
  check("ptr_ref", ptr_ref, grad_ptr_ref, tan_ptr_ref, x);
  check("inplace_loop", inplace_loop, grad_inplace_loop, tan_inplace_loop, x);
  check("static_scratch", static_scratch, grad_static_scratch,
        tan_static_scratch, x);
  check("memcpy_struct", memcpy_struct, grad_memcpy_struct, tan_memcpy_struct,
        x);
  check("mat", mat, grad_mat, tan_mat, x);
  check("refs", refs, grad_refs, tan_refs, x);
  check("arr", arr, grad_arr, tan_arr, x);
  check("templ", templ, grad_templ, tan_templ, x);
  check("lambda", lambda, grad_lambda, tan_lambda, x);
  check("vec3", vec3, grad_vec3, tan_vec3, x);
  check("minmax", minmax, grad_minmax, tan_minmax, x);
  return zy_report();
}
