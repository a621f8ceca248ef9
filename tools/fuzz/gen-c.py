#!/usr/bin/env python3
# gen-c.py - writes one random C program for the Zymase fuzzer: a scalar
# function f(double x0, ..., int k) and a main() that compares Zymase's
# gradient of f with central finite differences.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generate one fuzz case from a seed (python3, standard library only).

    gen-c.py SEED [--loop] [-o FILE]

f is built from + - * /, unary minus, libm calls whose arguments are
guarded to stay in their domain, float (f-suffixed) sub-expressions, if/else,
ternaries, a switch on an int, locals, int->double conversions and calls to
random static helpers (acyclic, plus at most one recursive helper with a
depth argument).  A third of the cases use double only (tight tolerances);
in the others some parameters or the result of f may be float, and k may
sit anywhere in the parameter list.  --loop adds a `for` loop, which Zymase does not support
yet: the expected outcome is then either a correct gradient (the loop was
unrolled before differentiation) or the error "... contains a loop".

main() calls __enzyme_autodiff at a few random points with a random set of
active arguments (the others passed with enzyme_const) and checks each
derivative against fourth-order central differences evaluated in long
double at three step sizes.  A point is skipped when f is not smooth there:
when a shadow copy of f (f_p, same code with every branch, switch, fmin,
fabs, fmod, atan2 and double->int conversion recorded) takes another path
anywhere on the stencil, or when the three difference quotients disagree.
It prints "zzfuzz: MISMATCH ..." and exits 1 on a real mismatch, and
"zzfuzz: ok ..." with the counts otherwise.  Run with ZZFUZZ_PERTURB=r, the
program scales each gradient by 1 + r before the check, to measure what the
check catches (about 1e-5 relative for double cases, 1e-3 for float ones).

The first line of the output records the seed and what the case contains,
for the runner (tools/fuzz/run-fuzz).
"""
import argparse
import random
import re
import sys

# Guarded libm calls.  A and B are sub-expressions; '@' becomes 'f' in
# float context (sinf, 1.5f) and '' in double context.  Constants always
# have a decimal point so that '1.0@' is a valid float literal.  The odd
# offset 0.7071 keeps atan2, hypot and cbrt off their singular point when a
# sub-expression is identically zero (k * x with k = 0, t - t): there the
# derivative rule yields 0/0 although f is locally constant.
LIBM = [
    ("sin", "sin@(A)"),
    ("cos", "cos@(A)"),
    ("tan", "tan@(tanh@(A) * 1.4@)"),
    ("asin", "asin@(tanh@(A) * 0.9@)"),
    ("acos", "acos@(sin@(A) * 0.95@)"),
    ("atan", "atan@(A)"),
    ("atan2", "atan2@(A, B + 0.7071@)"),
    ("sinh", "sinh@(sin@(A) * 2.0@)"),
    ("cosh", "cosh@(tanh@(A) * 2.0@)"),
    ("tanh", "tanh@(A)"),
    ("asinh", "asinh@(A)"),
    ("acosh", "acosh@(1.25@ + (A) * (A))"),
    ("atanh", "atanh@(sin@(A) * 0.9@)"),
    ("exp", "exp@(sin@(A))"),
    ("exp", "exp@(-(A) * (A))"),
    ("exp2", "exp2@(cos@(A))"),
    ("expm1", "expm1@(tanh@(A) * 1.5@)"),
    ("log", "log@(1.0@ + (A) * (A))"),
    ("log1p", "log1p@((A) * (A))"),
    ("log2", "log2@(2.0@ + sin@(A))"),
    ("log10", "log10@(1.0@ + fabs@(A))"),
    ("pow", "pow@(1.0@ + (A) * (A), sin@(B))"),
    ("pow", "pow@(A, 2.0@)"),
    ("pow", "pow@(A, 3.0@)"),
    ("pow", "pow@(fabs@(A) + 0.5@, tanh@(B))"),
    ("sqrt", "sqrt@(1.0@ + (A) * (A))"),
    ("sqrt", "sqrt@(2.0@ + cos@(A))"),
    ("cbrt", "cbrt@(A + 0.7071@)"),
    ("hypot", "hypot@(A, B + 0.7071@)"),
    ("erf", "erf@(A)"),
    ("erfc", "erfc@(A)"),
    ("fmin", "fmin@(A, B)"),
    ("fmax", "fmax@(A, B)"),
    ("fabs", "fabs@(A)"),
    ("fmod", "fmod@(A, 1.5@ + (B) * (B))"),
    ("fmod", "fmod@(A, 0.75@)"),
    ("tgamma", "tgamma@(1.5@ + sin@(A))"),
    ("lgamma", "lgamma@(1.0@ + (A) * (A))"),
]

# Calls whose result is only piecewise smooth: the shadow copy replaces
# them with recording wrappers (see PRELUDE).
KINKED = ["fmin", "fmax", "fabs", "fmod", "atan2"]

PRELUDE = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int enzyme_const, enzyme_out;

/* Path recording for the shadow copy f_p: every decision that can make f
 * non-smooth is folded into zz_path. */
static unsigned long zz_path;
static void zz_note(long v) { zz_path = zz_path * 1000003u + (unsigned long)v + 1; }
static int zz_b(int c) { zz_note(c != 0); return c; }
static int zz_s(int v) { zz_note(v); return v; }
static int zz_i(double v) { zz_note((long)(int)v); return (int)v; }
static double zz_fmin(double a, double b) { zz_note(a < b); return fmin(a, b); }
static double zz_fmax(double a, double b) { zz_note(a < b); return fmax(a, b); }
static double zz_fabs(double a) { zz_note(a < 0); return fabs(a); }
static double zz_fmod(double a, double b) { zz_note((long)trunc(a / b)); return fmod(a, b); }
static double zz_atan2(double y, double x) { zz_note(2 * (x < 0) + (y < 0)); return atan2(y, x); }
static float zz_fminf(float a, float b) { zz_note(a < b); return fminf(a, b); }
static float zz_fmaxf(float a, float b) { zz_note(a < b); return fmaxf(a, b); }
static float zz_fabsf(float a) { zz_note(a < 0); return fabsf(a); }
static float zz_fmodf(float a, float b) { zz_note((long)truncf(a / b)); return fmodf(a, b); }
static float zz_atan2f(float y, float x) { zz_note(2 * (x < 0) + (y < 0)); return atan2f(y, x); }
"""


class Fn:
    """A function being generated: its signature and what it may call."""

    def __init__(self, name, ret, params, callees, depth_param=None):
        self.name = name
        self.ret = ret  # 'd' or 'f'
        self.params = params  # [(name, 'd'|'f'|'i')]
        self.callees = callees  # [Fn]
        self.depth_param = depth_param  # recursion depth parameter or None

    def prototype(self, attrs=""):
        ps = ", ".join(f"{ctype(t)} {n}" for n, t in self.params)
        return f"{attrs}{ctype(self.ret)} {self.name}({ps})"


def ctype(t):
    return {"d": "double", "f": "float", "i": "int"}[t]


class Gen:
    def __init__(self, seed, loop):
        self.r = random.Random(seed)
        self.seed = seed
        self.want_loop = loop
        self.loops = 0
        self.uses_float = False
        self.tailrec = False
        self.ntemp = 0
        # A third of the cases are double-only, for tight tolerances.
        self.allow_float = self.r.random() < 0.67

    def flt(self, p):
        """Whether to pick float here (probability p, if floats are on)."""
        return self.allow_float and self.r.random() < p

    # -- expressions -------------------------------------------------------

    def const(self, t):
        r = self.r
        v = r.choice(["0.5", "1.5", "2.0", "0.25", "3.0", "0.75", "1.25",
                      "0.1", "4.0", "0.3"])
        return v + ("f" if t == "f" else "")

    def var(self, t):
        """A floating variable in scope, preferring type t."""
        same = [n for n, vt in self.scope if vt == t]
        anyf = [n for n, vt in self.scope if vt in "df"]
        pool = same if same and self.r.random() < 0.8 else anyf
        return self.r.choice(pool) if pool else None

    def intexpr(self):
        ints = [n for n, vt in self.scope if vt == "i"]
        r = self.r
        if not ints:
            return str(r.randint(0, 3))
        v = r.choice(ints)
        return r.choice([v, f"({v} % 3)", f"({v} + 1)", f"(({v} * 7) % 5)",
                         f"({v} & 1)", f"({v} - 1)"])

    def leaf(self, t):
        r = self.r
        p = r.random()
        v = self.var(t)
        if v and p < 0.75:
            return v
        if p < 0.9:
            if t == "f":
                self.uses_float = True
            return self.const(t)
        return f"({ctype(t)}){self.intexpr()}"

    def expr(self, t, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(t)
        kinds = ["bin"] * 30 + ["neg"] * 4 + ["call"] * 26 + ["tern"] * 7 + \
            ["int"] * 3 + ["trunc"] * 1
        if self.allow_float:
            kinds += ["other"] * 7
        if self.callees:
            kinds += ["helper"] * 8
        k = r.choice(kinds)
        d = depth - 1
        if k == "bin":
            op = r.choice("+++--**/")
            a, b = self.expr(t, d), self.expr(t, d)
            if op == "/":
                guard = r.random()
                if guard < 0.45:
                    return f"({a} / ({self.fc('1.5', t)} + {b} * {b}))"
                if guard < 0.9:
                    return f"({a} / ({self.fc('2.0', t)} + sin{self.sfx(t)}({b})))"
                # A pole, but never at an exact zero such as (double)(k - 1)
                # with k = 1, where f is inf and its gradient NaN.
                return f"({a} / ({b} + {self.fc('0.7071', t)}))"
            return f"({a} {op} {b})"
        if k == "neg":
            return f"(-{self.expr(t, d)})"
        if k == "call":
            return self.libm(t, d)
        if k == "tern":
            return f"({self.cond(d)} ? {self.expr(t, d)} : {self.expr(t, d)})"
        if k == "other":
            # A sub-expression of the other precision, converted.
            o = "d" if t == "f" else "f"
            self.uses_float = True
            e = self.expr(o, d)
            return f"({ctype(t)}){e}" if r.random() < 0.6 else f"({e})"
        if k == "int":
            return f"({self.intexpr()} * {self.expr(t, d)})"
        if k == "trunc":
            # Piecewise constant: derivative 0 away from the jumps.
            return f"({ctype(t)})ZI(tanh({self.expr('d', d)}) * 2.5)"
        return self.helper_call(t, d)

    def sfx(self, t):
        if t == "f":
            self.uses_float = True
            return "f"
        return ""

    def fc(self, c, t):
        return c + self.sfx(t)

    def libm(self, t, d):
        _, tmpl = self.r.choice(LIBM)
        s = self.sfx(t)
        a = self.expr(t, d)
        b = self.expr(t, d) if "B" in tmpl else ""
        return re.sub("[@AB]", lambda m: {"@": s, "A": a, "B": b}[m.group()],
                      tmpl)

    def cond(self, d):
        r = self.r
        p = r.random()
        t = "f" if self.flt(0.2) else "d"
        if p < 0.1:
            return f"ZB({self.intexpr()} > 1)"
        op = r.choice(["<", ">", "<=", ">=", "<", ">"])
        rhs = self.expr(t, d - 1) if r.random() < 0.6 else self.const(t)
        c = f"ZB({self.expr(t, d)} {op} {rhs})"
        if p < 0.2:
            c2 = f"ZB({self.expr(t, d - 1)} > {self.const(t)})"
            c = f"({c} {r.choice(['&&', '||'])} {c2})"
        elif p < 0.25:
            c = f"!{c}"
        return c

    def helper_call(self, t, d):
        fn = self.r.choice(self.callees)
        args = []
        for n, pt in fn.params:
            if pt == "i":
                if n == fn.depth_param:
                    args.append(self.r.choice(["2", "3", "1",
                                               f"({self.intexpr()}) & 3"]))
                else:
                    args.append(self.intexpr())
            else:
                args.append(self.expr(pt, max(d - 1, 0)))
        call = f"{fn.name}({', '.join(args)})"
        return call if fn.ret == t else f"({ctype(t)}){call}"

    # -- statements ----------------------------------------------------------

    def temp(self):
        self.ntemp += 1
        return f"t{self.ntemp}"

    def locals_of(self, types="df"):
        return [n for n, vt in self.scope if vt in types and n in self.mutable]

    def stmt(self, lines, ind, budget, nest):
        """Appends one random statement to lines; returns nothing."""
        r = self.r
        p = r.random()
        sp = "  " * ind
        muts = self.locals_of()
        if self.want_loop and not self.loops and muts and r.random() < 0.15:
            self.loop(lines, ind, muts)
            return
        if p < 0.35 or not muts:
            t = "f" if self.flt(0.25) else "d"
            if t == "f":
                self.uses_float = True
            n = self.temp()
            lines.append(f"{sp}{ctype(t)} {n} = {self.expr(t, budget)};")
            self.scope.append((n, t))
            self.mutable.add(n)
        elif p < 0.5:
            n = r.choice(muts)
            t = dict(self.scope)[n]
            op = r.choice(["=", "=", "+=", "-=", "*="])
            lines.append(f"{sp}{n} {op} {self.expr(t, budget)};")
        elif p < 0.72 and nest < 2:
            self.if_stmt(lines, ind, budget, nest)
        elif p < 0.82 and nest < 2:
            self.switch_stmt(lines, ind, budget, nest)
        elif p < 0.9 and self.returned_early < 2:
            self.returned_early += 1
            lines.append(f"{sp}if ({self.cond(budget - 1)})")
            lines.append(f"{sp}  return {self.expr(self.fn.ret, budget)};")
        elif p < 0.95:
            n = f"m{self.ntemp}"
            self.ntemp += 1
            if r.random() < 0.7:
                lines.append(f"{sp}int {n} = {self.intexpr()};")
            else:
                lines.append(f"{sp}int {n} = ZI(tanh({self.expr('d', budget - 1)}) * 2.0);")
            self.scope.append((n, "i"))
        else:
            n = r.choice(muts)
            t = dict(self.scope)[n]
            lines.append(f"{sp}{n} = {self.cond(budget - 1)} ? {self.expr(t, budget - 1)} : {n};")

    def block(self, lines, ind, budget, nest, count):
        saved = list(self.scope)
        for _ in range(count):
            self.stmt(lines, ind, budget, nest)
        self.scope = saved

    def if_stmt(self, lines, ind, budget, nest):
        sp = "  " * ind
        lines.append(f"{sp}if ({self.cond(budget - 1)}) {{")
        self.block(lines, ind + 1, budget - 1, nest + 1, self.r.randint(1, 3))
        if self.r.random() < 0.7:
            lines.append(f"{sp}}} else {{")
            self.block(lines, ind + 1, budget - 1, nest + 1, self.r.randint(1, 2))
        lines.append(f"{sp}}}")

    def switch_stmt(self, lines, ind, budget, nest):
        r = self.r
        sp = "  " * ind
        if r.random() < 0.2:
            sel = f"ZI(tanh({self.expr('d', budget - 1)}) * 2.0)"
        else:
            sel = self.intexpr()
        lines.append(f"{sp}switch (ZS({sel})) {{")
        ncase = r.randint(1, 3)
        for c in range(ncase):
            lines.append(f"{sp}case {c}: {{")
            self.block(lines, ind + 1, budget - 1, nest + 1, r.randint(1, 2))
            if r.random() < 0.8:
                lines.append(f"{sp}  break;")
            else:
                lines.append(f"{sp}  /* fall through */")
            lines.append(f"{sp}}}")
        lines.append(f"{sp}default: {{")
        self.block(lines, ind + 1, budget - 1, nest + 1, 1)
        lines.append(f"{sp}  break;")
        lines.append(f"{sp}}}")
        lines.append(f"{sp}}}")

    def loop(self, lines, ind, muts):
        r = self.r
        sp = "  " * ind
        self.loops += 1
        n = r.choice(muts)
        t = dict(self.scope)[n]
        s = "f" if t == "f" else ""
        bound = r.choice(["2", "3", "4", "k + 1", "k"])
        if "k" in bound and not any(v == "k" for v, _ in self.scope):
            bound = "3"
        lines.append(f"{sp}for (int i = 0; i < {bound}; i++)")
        lines.append(f"{sp}  {n} = {n} * 0.5{s} + sin{s}({n} + ({ctype(t)})i * 0.25{s});")

    # -- functions -----------------------------------------------------------

    def function(self, fn, nstmts, budget):
        self.fn = fn
        self.scope = list(fn.params)
        self.mutable = set()
        self.callees = fn.callees
        self.returned_early = 0
        lines = []
        if fn.depth_param:
            dp = fn.depth_param
            lines.append(f"  if ({dp} <= 0)")
            lines.append(f"    return {self.expr(fn.ret, 2)};")
            args = []
            for n, t in fn.params:
                args.append(f"{dp} - 1" if n == dp else self.expr(t, 1))
            rec = f"{fn.name}({', '.join(args)})"
            if self.r.random() < 0.4:
                # Tail recursion: -O2 turns it into a loop.
                self.tailrec = True
                lines.append(f"  return {rec};")
            else:
                lines.append(f"  return {self.expr(fn.ret, 2)} + {rec} * "
                             f"{self.expr(fn.ret, 1)};")
        else:
            self.block(lines, 1, budget, 0, nstmts)
            self.scope = list(fn.params) + [(n, t) for n, t in self.all_locals(lines)]
            lines.append(f"  return {self.ret_expr(fn.ret, budget)};")
        return lines

    def all_locals(self, lines):
        """Locals declared at function level (indent 1), for the return."""
        out = []
        for ln in lines:
            m = re.match(r"^  (double|float) (t\d+) = ", ln)
            if m:
                out.append((m.group(2), "d" if m.group(1) == "double" else "f"))
        return out

    def ret_expr(self, t, budget):
        locs = [n for n, vt in self.scope if n.startswith("t")]
        e = self.expr(t, budget)
        for n in locs[-3:]:
            if self.r.random() < 0.6:
                e = f"{e} {self.r.choice('+-*')} {n}"
        return e


def render(text, shadow):
    """Text of the functions, clean (for AD) or as the recording shadow."""
    if not shadow:
        text = text.replace("ZB(", "(").replace("ZS(", "(")
        return text.replace("ZI(", "(int)(")
    text = text.replace("ZB(", "zz_b(").replace("ZS(", "zz_s(")
    text = text.replace("ZI(", "zz_i(")
    text = re.sub(r"\b(" + "|".join(KINKED) + r")(f?)\(", r"zz_\1\2(", text)
    return re.sub(r"\b(f|h\d+|hr)\(", r"\1_p(", text)


def generate(seed, loop):
    g = Gen(seed, loop)
    r = g.r
    nx = r.randint(1, 4)
    # Helpers: h1..hN (hi may call hj for j > i) and maybe hr (recursive).
    helpers = []
    rec = None
    if r.random() < 0.35:
        rec = Fn("hr", "d", [("a", "d"), ("b", "d"), ("depth", "i")], [],
                 depth_param="depth")
    nh = r.choice([0, 1, 1, 2, 2, 3])
    for i in range(nh, 0, -1):
        params = [(f"a{j}", "f" if g.flt(0.2) else "d")
                  for j in range(r.randint(1, 3))]
        if r.random() < 0.4:
            params.append(("n", "i"))
        callees = list(helpers) + ([rec] if rec else [])
        ret = "f" if g.flt(0.2) else "d"
        helpers.insert(0, Fn(f"h{i}", ret, params, callees))
    # f: nx floating parameters (some float), the int k (usually last) and
    # a double result (sometimes float).
    params = [(f"x{i}", "f" if g.flt(0.2) else "d") for i in range(nx)]
    params.insert(r.randint(0, nx) if r.random() < 0.3 else nx, ("k", "i"))
    f = Fn("f", "f" if g.flt(0.15) else "d", params,
           helpers + ([rec] if rec else []))
    body = []
    order = ([rec] if rec else []) + list(reversed(helpers))
    attrs = {}
    for fn in order:
        attrs[fn.name] = "static __attribute__((noinline)) " \
            if r.random() < 0.5 else "static "
    for fn in order:
        lines = g.function(fn, r.randint(1, 3), 2)
        body.append(fn.prototype(attrs[fn.name]) + " {")
        body += lines
        body.append("}")
        body.append("")
    lines = g.function(f, r.randint(2, 8), r.choice([3, 3, 4]))
    if loop:
        # A loop at function level whose result reaches the return value.
        g.scope = list(f.params) + g.all_locals(lines)
        g.mutable = {n for n, _ in g.all_locals(lines)}
        if not g.mutable:
            lines.insert(0, "  double t0 = x0;")
            g.scope.append(("t0", "d"))
            g.mutable.add("t0")
        ret = lines.pop()
        var = g.r.choice(sorted(g.mutable))
        g.loop(lines, 1, [var])
        lines.append(f"  return ({ret[len('  return '):-1]}) + 0.5 * {var};")
    body.append(f.prototype() + " {")
    body += lines
    body.append("}")
    text = "\n".join(body) + "\n"
    # Whether float is used anywhere, for the finite-difference tolerances.
    floats = bool(g.uses_float or "float" in text or re.search(r"[0-9]f\b", text))
    return f, text, floats, g.loops, int(rec is not None) + g.tailrec, r


def main_fn(f, floats, r):
    xtypes = [t for _, t in f.params if t != "i"]
    nx = len(xtypes)
    out = []
    npts = r.randint(2, 4)
    protos = []
    checks = []
    for p in range(npts):
        # On a 2^-12 grid: exact in float, and so is x +- h.
        xs = [round(r.uniform(-2.0, 2.0) * 4096) / 4096 for _ in range(nx)]
        k = r.randint(0, 4)
        active = [r.random() < 0.6 for _ in range(nx)]
        if not any(active):
            active[r.randrange(nx)] = True
        na = sum(active)
        fields = [ctype(xtypes[i]) for i in range(nx) if active[i]]
        if na == 1 and r.random() < 0.85:
            rt = fields[0]
        else:
            rt = f"ZzG_p{p}"
            protos.append("typedef struct { " + " ".join(
                f"{t} d{j};" for j, t in enumerate(fields)) + f" }} {rt};")
        protos.append(f"{rt} __enzyme_autodiff_p{p}(void *, ...);")
        args = []
        i = 0
        for n, t in f.params:
            if t == "i":
                args += ["enzyme_const", "k"] if r.random() < 0.2 else ["k"]
                continue
            v = f"x[{i}]" if r.random() < 0.7 else repr(xs[i])
            if t == "f":
                v = f"(float){v}"
            if not active[i]:
                args += ["enzyme_const", v]
            elif r.random() < 0.2:
                args += ["enzyme_out", v]
            else:
                args.append(v)
            i += 1
        mask = ", ".join("1" if a else "0" for a in active)
        body = [f"  {{ /* point {p} */",
                f"    double x[{nx}] = {{{', '.join(repr(v) for v in xs)}}};",
                f"    int k = {k};",
                f"    static const int act[{nx}] = {{{mask}}};"]
        call = f"__enzyme_autodiff_p{p}((void *)f, {', '.join(args)})"
        if not rt.startswith("ZzG"):
            body.append(f"    double ad[{nx}] = {{0}};")
            idx = active.index(True)
            body.append(f"    ad[{idx}] = {call};")
        else:
            body.append(f"    {rt} g = {call};")
            body.append(f"    double ad[{nx}] = {{0}};")
            j = 0
            for i in range(nx):
                if active[i]:
                    body.append(f"    ad[{i}] = g.d{j};")
                    j += 1
        body.append(f"    bad |= zz_check({p}, x, k, act, ad);")
        body.append("  }")
        checks += body
    # Steps small enough to resolve oscillations (sin of a large argument)
    # yet large against the rounding noise of float code.
    h = "0x1p-7" if floats else "0x1p-8"
    rtol = "1e-4" if floats else "1e-7"
    smooth = "1e-3" if floats else "1e-6"
    eps = "6e-8" if floats else "2.3e-16"
    xi = iter(range(nx))
    args = ", ".join("k" if t == "i" else f"x[{next(xi)}]" for _, t in f.params)
    out += protos + [""]
    out.append(CHECKER.format(nx=nx, h=h, rtol=rtol, eps=eps, smooth=smooth,
                              args=args))
    out.append("int main(void) {")
    out.append("  int bad = 0;")
    out.append('  if (getenv("ZZFUZZ_PERTURB"))')
    out.append('    zz_perturb = atof(getenv("ZZFUZZ_PERTURB"));')
    out += checks
    out.append('  printf("zzfuzz: %s, %d derivatives checked, %d skipped '
               '(branch %d, nonsmooth %d, nonfinite %d)\\n", bad ? "FAIL" : "ok",')
    out.append("         zz_checked, zz_skip_branch + zz_skip_fd + zz_skip_inf,")
    out.append("         zz_skip_branch, zz_skip_fd, zz_skip_inf);")
    out.append("  return bad;")
    out.append("}")
    return "\n".join(out) + "\n"


CHECKER = r"""
static int zz_checked, zz_skip_branch, zz_skip_fd, zz_skip_inf;
/* ZZFUZZ_PERTURB=r scales every gradient by 1 + r: tests how small an
 * error this checker catches. */
static double zz_perturb;

static double zz_eval(const double *x, int k) {{ return f({args}); }}
static unsigned long zz_trace(const double *x, int k) {{
  zz_path = 0;
  (void)f_p({args});
  return zz_path;
}}

/* Fourth-order central difference of f in x[i] with step h, in long
 * double; *fbig gets the largest |f| seen (for the noise estimate). */
static long double zz_fd(double *x, int k, int i, double h, double *fbig) {{
  double xi = x[i];
  double v[4];
  const double off[4] = {{h, -h, 2 * h, -2 * h}};
  for (int j = 0; j < 4; j++) {{
    x[i] = xi + off[j];
    v[j] = zz_eval(x, k);
    if (fabs(v[j]) > *fbig || v[j] != v[j])
      *fbig = v[j] != v[j] ? INFINITY : fabs(v[j]);
  }}
  x[i] = xi;
  return (8.0L * ((long double)v[0] - v[1]) - ((long double)v[2] - v[3])) /
         (12.0L * h);
}}

/* Whether the branch decisions of f are the same on the whole stencil. */
static int zz_same_path(double *x, int k, int i, double h) {{
  unsigned long p0 = zz_trace(x, k);
  double xi = x[i];
  int same = 1;
  for (int j = -8; j <= 8 && same; j++) {{
    x[i] = xi + j * (h / 4);
    same = zz_trace(x, k) == p0;
  }}
  x[i] = xi;
  return same;
}}

/* Checks the gradient ad[] (entries with act[i] set) against finite
 * differences at x; returns 1 on a mismatch. */
static int zz_check(int point, double *x, int k, const int *act,
                    const double *ad) {{
  int bad = 0;
  double f0 = zz_eval(x, k);
  if (!isfinite(f0) || fabs(f0) > 1e12) {{
    zz_skip_inf++;
    return 0;
  }}
  for (int i = 0; i < {nx}; i++) {{
    if (!act[i])
      continue;
    const double h = {h};
    if (!zz_same_path(x, k, i, h)) {{
      zz_skip_branch++;
      continue;
    }}
    double fbig = fabs(f0);
    long double d1 = zz_fd(x, k, i, h, &fbig);
    long double d2 = zz_fd(x, k, i, h / 2, &fbig);
    long double d3 = zz_fd(x, k, i, h / 4, &fbig);
    if (!isfinite((double)d1) || !isfinite((double)d2) ||
        !isfinite((double)d3) || !isfinite(fbig) || fbig > 1e12) {{
      zz_skip_inf++;
      continue;
    }}
    /* Rounding noise of the h/4 quotient: 1.5 eps |f| / h per rounding
     * of f, with about ten roundings in a row. */
    double noise = 15 * {eps} * fbig / (h / 4);
    double scale = fmax(1.0, fabs((double)d3));
    double e12 = fabs((double)(d1 - d2)), e23 = fabs((double)(d2 - d3));
    if (e12 > {smooth} * scale + noise || e23 > {smooth} * scale + noise) {{
      zz_skip_fd++;
      continue;
    }}
    zz_checked++;
    double err = fabs(ad[i] * (1 + zz_perturb) - (double)d3);
    if (!(err <= {rtol} * scale + 4 * fmax(e12, e23) + noise)) {{
      bad = 1;
      printf("zzfuzz: MISMATCH point %d d/dx%d: ad=%.17g fd=%.17g "
             "(fd at h, h/2, h/4: %.12g %.12g %.12g) at x=(",
             point, i, ad[i], (double)d3, (double)d1, (double)d2, (double)d3);
      for (int j = 0; j < {nx}; j++)
        printf("%s%.17g", j ? ", " : "", x[j]);
      printf(") k=%d\n", k);
    }}
  }}
  return bad;
}}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--loop", action="store_true",
                    help="add a for loop (expect a clean 'contains a loop' error)")
    ap.add_argument("-o", "--output", help="output file (default stdout)")
    a = ap.parse_args()
    f, text, floats, loops, rec, r = generate(a.seed, a.loop)
    src = []
    src.append(f"// zzfuzz seed={a.seed} loop={loops} float={int(floats)} "
               f"recursive={'none plain tail'.split()[rec]} "
               f"args={len(f.params) - 1}")
    src.append("// Generated by tools/fuzz/gen-c.py: f is differentiated by "
               "Zymase, f_p is its path-recording shadow.")
    src.append(PRELUDE)
    src.append(render(text, False))
    src.append("/* Shadow copy: same code, records its branch decisions. */")
    src.append(render(text, True))
    src.append(main_fn(f, floats, r))
    out = "\n".join(src)
    if a.output:
        with open(a.output, "w") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
