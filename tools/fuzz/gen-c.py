#!/usr/bin/env python3
# gen-c.py - writes one random C program for the Zymase fuzzer: a scalar
# function f(double x0, ..., int k) and a main() that compares Zymase's
# gradient of f with central finite differences.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generate one fuzz case from a seed (python3, standard library only).

    gen-c.py SEED [--no-loops] [-o FILE]

f is built from + - * /, unary minus, libm calls whose arguments are
guarded to stay in their domain, float (f-suffixed) sub-expressions, if/else,
ternaries, a switch on an int, locals, int->double conversions and calls to
random static helpers (acyclic, plus at most one recursive helper with a
depth argument).  A third of the cases use double only (tight tolerances);
in the others some parameters or the result of f may be float, and k may
sit anywhere in the parameter list.

Four cases out of five have loops, in f and in the helpers (--no-loops
turns them off): for loops whose trip counts come from k and the other ints
((k & 7) + 1, an outer counter + 1 for triangular nests; counting up, down
or by two), while and do-while loops that exit on a data-dependent
condition and are capped by a counter so that they terminate, for loops
with a data-dependent test in their condition, nests up to three deep
(helpers called inside loops count toward the three), break, continue and
early returns under data-dependent conditions, loop-carried values (sums,
bounded products, contracting recurrences, running min/max, second-order
and rotation recurrences over two variables) and local arrays: filled in
one loop, updated in place (a[i] = g(a[i], a[i - 1]) forwards, from
a[i + 1] backwards, sometimes in several passes) and reduced in another,
and read or written at masked indices anywhere in their scope.  The updates
keep values bounded over the at most 8^3 iterations of a nest (a point
where f overflows all the same is skipped).

main() calls __enzyme_autodiff at a few random points with a random set of
active arguments (the others passed with enzyme_const) and checks each
derivative against fourth-order central differences evaluated in long
double at three step sizes.  A point is skipped when f is not smooth there:
when a shadow copy of f (f_p, same code with every branch, switch, fmin,
fabs, fmod, atan2 and double->int conversion recorded, and every loop
condition and loop exit test, so its trip counts too) takes another path
anywhere on the stencil, when the three difference quotients disagree, or
when f is not finite there or raises a floating-point overflow, division by
zero or invalid exception on the way (an inf or NaN intermediate that the
result does not see, such as fmin(inf, y), still makes the derivative
rules produce NaN, as in any AD tool).
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
#include <fenv.h>
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
        # Loop nesting of the body, callees included: a call from inside
        # loops is only made while the total stays at most MAX_DEPTH, which
        # bounds the work of one call of f (about 8^3 iterations).
        self.depth = 0

    def prototype(self, attrs=""):
        ps = ", ".join(f"{ctype(t)} {n}" for n, t in self.params)
        return f"{attrs}{ctype(self.ret)} {self.name}({ps})"


def ctype(t):
    return {"d": "double", "f": "float", "i": "int", "P": "double *"}[t]


def subst(tmpl, t, **parts):
    """tmpl with '@' made the float suffix (t == 'f') and the upper-case
    letters given in parts replaced by their text."""
    s = "f" if t == "f" else ""
    return re.sub("[@A-Z]", lambda m: s if m.group() == "@"
                  else parts.get(m.group(), m.group()), tmpl)


MAX_DEPTH = 3

# Loop-carried updates of an accumulator V (the outer variable a loop
# feeds): sums, bounded products, contracting recurrences, a running
# minimum or maximum.  E is a random expression that does not read V
# (expr_without), W a second variable for the two-variable recurrences, T
# and U fresh temporaries of C type Y.  None grows faster than linearly in
# the iterations when E does not, so that f stays moderate over the
# hundreds of iterations of a nest.
CARRIED = [
    ("add", ["V += E;"]),
    ("add", ["V += 0.25@ * E;"]),
    ("sub", ["V -= 0.5@ * E;"]),
    ("prod", ["V *= 1.0@ + 0.25@ * tanh@(E);"]),
    ("prod", ["V *= cos@(E);"]),
    ("rec", ["V = V * 0.5@ + sin@(V + E);"]),
    ("rec", ["V = 0.75@ * V + 0.5@ * tanh@(E);"]),
    ("rec", ["V = 0.5@ * V + E;"]),
    ("max", ["V = fmax@(V, E);"]),
    ("min", ["V = fmin@(V, E);"]),
    # Second-order recurrence (eigenvalues 0.81 and -0.31).
    ("pair", ["Y T = V;", "V = 0.5@ * V + 0.25@ * W;", "W = T + 0.1@ * E;"]),
    # Rotation by an angle that depends on the data: norm-preserving.
    ("pair", ["Y T = E;", "Y U = V;", "V = cos@(T) * V - sin@(T) * W;",
              "W = sin@(T) * U + cos@(T) * W;"]),
]

# In-place updates a[i] = g(a[i], a[i - 1]) (A is a[i], B the other
# element, E a random expression).
INPLACE = [
    "A = A + 0.5@ * B;",
    "A = A * 0.75@ + sin@(B + E);",
    "A = 0.5@ * (A + B) + 0.25@ * E;",
    "A = A * tanh@(B) + E;",
    "A += B * E;",
    "A = fmax@(A, B) + 0.1@ * E;",
]


class Gen:
    def __init__(self, seed, loops=True):
        self.r = random.Random(seed)
        self.seed = seed
        self.uses_float = False
        self.tailrec = False
        self.ntemp = 0
        # A third of the cases are double-only, for tight tolerances.
        self.allow_float = self.r.random() < 0.67
        # Four cases out of five have loops; loop_p is how likely a
        # statement is to be one.
        self.loop_p = 0.0
        if loops and self.r.random() < 0.8:
            self.loop_p = self.r.choice([0.12, 0.2, 0.3])
        self.stats = {"loops": 0, "depth": 0, "while": 0, "arrays": 0,
                      "exits": 0}
        self.depth = 0  # loops around the statement being generated
        self.in_switch = False  # whether `break` would leave a switch
        self.exits_ok = True  # whether break/continue may leave this body
        self.arrays = {}  # local array -> size
        self.imax = {}  # loop counter -> largest value it takes
        self.touched = set()  # variables updated by loops
        self.hv = None  # the array helper, if any

    def flt(self, p):
        """Whether to pick float here (probability p, if floats are on)."""
        return self.allow_float and self.r.random() < p

    def new(self, prefix):
        self.ntemp += 1
        return f"{prefix}{self.ntemp}"

    # -- expressions -------------------------------------------------------

    def const(self, t):
        r = self.r
        v = r.choice(["0.5", "1.5", "2.0", "0.25", "3.0", "0.75", "1.25",
                      "0.1", "4.0", "0.3"])
        return v + ("f" if t == "f" else "")

    def var(self, t):
        """A floating variable in scope, preferring type t."""
        same = [n for n, vt in self.scope if vt == t]
        anyf = [n for n, vt in self.scope if vt in ("d", "f")]
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

    def elem(self, t):
        """An element of a local array in scope (preferring type t) at an
        index masked into range, or None."""
        arrs = [(n, vt) for n, vt in self.scope if vt in ("D", "F")]
        if not arrs:
            return None
        same = [a for a in arrs if a[1] == t.upper()]
        n, vt = self.r.choice(same or arrs)
        e = f"{n}[{self.intexpr()} & {self.arrays[n] - 1}]"
        return e if vt == t.upper() else f"({ctype(t)}){e}"

    def leaf(self, t):
        r = self.r
        if r.random() < 0.2:
            e = self.elem(t)
            if e:
                return e
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
        if self.callable():
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

    def expr_without(self, v, t, depth):
        """An expression that does not read v directly.  In a loop, v += E
        with v in E doubles v at every iteration: after a few dozen, f is
        dominated by terms like sin(2^40 x), whose derivative is huge and
        right but beyond what finite differences can resolve (their
        high-frequency part aliases into noise below the smoothness
        check), a false mismatch."""
        if not self.depth:
            return self.expr(t, depth)
        saved = self.scope
        self.scope = [e for e in saved if e[0] != v]
        e = self.expr(t, depth)
        self.scope = saved
        return e

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

    def callable(self):
        """The helpers a call here may use: their loops, nested in the
        loops around the call, stay within MAX_DEPTH, and hv only with an
        array to pass."""
        arr = self.arrays8()
        return [c for c in self.callees if c.depth + self.depth <= MAX_DEPTH
                and (arr or all(t != "P" for _, t in c.params))]

    def arrays8(self):
        """The double arrays of 8 elements in scope (for hv)."""
        return [n for n, vt in self.scope if vt == "D" and self.arrays[n] == 8]

    def helper_call(self, t, d, fn=None):
        fn = fn or self.r.choice(self.callable())
        self.called_depth = max(self.called_depth, fn.depth)
        args = []
        for n, pt in fn.params:
            if pt == "P":
                args.append(self.r.choice(self.arrays8()))
            elif pt == "i":
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
        return self.new("t")

    def locals_of(self, types="df"):
        return [n for n, vt in self.scope if vt in types and n in self.mutable]

    def stmt(self, lines, ind, budget, nest):
        """Appends one random statement to lines; returns nothing."""
        r = self.r
        sp = "  " * ind
        muts = self.locals_of()
        if self.depth < MAX_DEPTH and \
                r.random() < self.loop_p / (1 + self.depth):
            self.loop_stmt(lines, ind, budget, nest)
            return
        if self.depth:
            # Statements that only make sense in a loop body.
            q = r.random()
            if q < 0.12 and self.exits_ok:
                self.exit_stmt(lines, ind, budget)
                return
            if q < 0.3 and muts:
                lines += self.carried(r.choice(muts), ind, budget)
                return
            if q < 0.4 and self.elem("d"):
                self.array_store(lines, ind, budget)
                return
        p = r.random()
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
            # In a loop, `*=` with an arbitrary factor would overflow.
            op = r.choice(["=", "=", "+=", "-="] + ["*="] * (not self.depth))
            lines.append(f"{sp}{n} {op} {self.expr_without(n, t, budget)};")
        elif p < 0.72 and nest < 2:
            self.if_stmt(lines, ind, budget, nest)
        elif p < 0.82 and nest < 2:
            self.switch_stmt(lines, ind, budget, nest)
        elif p < 0.9 and self.returned_early < 2:
            self.returned_early += 1
            if self.depth:
                self.stats["exits"] += 1
            lines.append(f"{sp}if ({self.cond(budget - 1)})")
            lines.append(f"{sp}  return {self.expr(self.fn.ret, budget)};")
        elif p < 0.95:
            n = self.new("m")
            if r.random() < 0.7:
                lines.append(f"{sp}int {n} = {self.intexpr()};")
            else:
                lines.append(f"{sp}int {n} = ZI(tanh({self.expr('d', budget - 1)}) * 2.0);")
            self.scope.append((n, "i"))
        elif p < 0.97 and not self.depth:
            self.array_decl(lines, ind, budget, nest)
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
        saved = self.in_switch
        self.in_switch = True
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
        self.in_switch = saved

    # -- loops -----------------------------------------------------------------
    #
    # Every loop condition and every exit test is wrapped in ZB, so the
    # shadow f_p records each iteration's decision: the path hash then
    # covers the trip counts, breaks and early returns, and a point where
    # a perturbation of x changes one of them is skipped like a branch.

    def accumulator(self, lines, ind, budget):
        """A variable in scope for a loop to update, declared here when
        there is none (or sometimes anyway)."""
        r = self.r
        muts = self.locals_of()
        if muts and r.random() < 0.75:
            return r.choice(muts)
        t = "f" if self.flt(0.25) else "d"
        n = self.temp()
        init = r.choice([self.fc("0.0", t), self.fc("1.0", t),
                         self.expr(t, max(budget - 1, 0))])
        lines.append(f"{'  ' * ind}{ctype(t)} {n} = {init};")
        self.scope.append((n, t))
        self.mutable.add(n)
        return n

    def carried(self, v, ind, budget):
        """Lines updating v from one iteration to the next."""
        r = self.r
        sp = "  " * ind
        t = dict(self.scope)[v]
        others = [n for n in self.locals_of(t) if n != v]
        forms = [f for f in CARRIED if f[0] != "pair" or others]
        _, tmpl = r.choice(forms)
        w = r.choice(others) if others else ""
        tv, uv = self.new("t"), self.new("t")
        e = self.expr_without(v, t, max(budget - 1, 0))
        if t == "f":
            self.uses_float = True
        self.touched.update([v, w])
        return [sp + subst(ln, t, V=v, W=w, E=e, T=tv, U=uv, Y=ctype(t))
                for ln in tmpl]

    def exit_stmt(self, lines, ind, budget):
        """break or continue under a condition (break only where it leaves
        the loop, not a switch)."""
        r = self.r
        sp = "  " * ind
        kw = "continue" if self.in_switch or r.random() < 0.4 else "break"
        self.stats["exits"] += 1
        muts = self.locals_of()
        if muts and r.random() < 0.3:
            lines.append(f"{sp}if ({self.cond(budget - 1)}) {{")
            lines += self.carried(r.choice(muts), ind + 1, budget)
            lines.append(f"{sp}  {kw};")
            lines.append(f"{sp}}}")
        else:
            lines.append(f"{sp}if ({self.cond(budget - 1)})")
            lines.append(f"{sp}  {kw};")

    def bound(self, hi):
        """An int expression for a trip count in [0, hi]: from k, the other
        ints in scope (outer loop counters for triangular loops) or a
        constant."""
        r = self.r
        ints = [n for n, vt in self.scope if vt == "i"]
        p = r.random()
        if not ints or p < 0.15:
            return str(r.randint(1, hi))
        v = r.choice(ints)
        if self.imax.get(v, hi) < hi and p < 0.4:
            return f"{v} + 1"
        m = hi - 1
        return r.choice([f"({v} & {m}) + 1", f"({v} & {m}) + 1",
                         f"({v} & {hi // 2 - 1}) + {hi // 2}", f"({v} & {m})"])

    def loop_stmt(self, lines, ind, budget, nest):
        r = self.r
        kinds = ["for"] * 5 + ["while"] * 2 + ["do"] * 1
        if self.depth < MAX_DEPTH - 1:
            kinds += ["array"] * 2
        kind = r.choice(kinds)
        if kind == "array":
            self.array_decl(lines, ind, budget, nest, pattern=True)
        elif kind == "for":
            self.for_loop(lines, ind, budget, nest)
        else:
            self.while_loop(lines, ind, budget, nest, kind == "do")

    def loop_body(self, lines, ind, budget, nest, header, footer, counters,
                  core, fill=False):
        """Appends header, a body and footer.  counters are the loop's int
        variables with their largest values; core(ind) returns the lines
        that make the loop matter (a loop-carried update, an array store),
        placed first or last among a few random statements.  With fill,
        core comes first and nothing skips it (it initializes an array)."""
        r = self.r
        saved = (list(self.scope), self.in_switch, self.exits_ok)
        self.exits_ok = not fill
        self.stats["loops"] += 1
        self.depth += 1
        self.fdepth = max(self.fdepth, self.depth)
        self.stats["depth"] = max(self.stats["depth"], self.depth)
        self.in_switch = False
        for n, mx in counters:
            self.scope.append((n, "i"))
            self.imax[n] = mx
        lines.append(header)
        first = fill or r.random() < 0.4
        body = core(ind + 1)
        if r.random() < 0.85:
            extra = []
            self.block(extra, ind + 1, budget - 1, nest, r.randint(1, 3))
            body = body + extra if first else extra + body
        lines += body
        lines.append(footer)
        self.depth -= 1
        self.scope, self.in_switch, self.exits_ok = saved

    def for_loop(self, lines, ind, budget, nest):
        r = self.r
        sp = "  " * ind
        acc = self.accumulator(lines, ind, budget)
        i = self.new("i")
        hi = 8
        b = self.bound(hi)
        form = r.random()
        if form < 0.55:
            head = f"for (int {i} = 0; ZB({i} < {b}); {i}++)"
        elif form < 0.7:
            head = f"for (int {i} = {b} - 1; ZB({i} >= 0); {i}--)"
        elif form < 0.8:
            head = f"for (int {i} = 0; ZB({i} < {b}); {i} += 2)"
        else:
            # A data-dependent exit in the loop condition.
            t = dict(self.scope)[acc]
            op = r.choice(["<", ">"])
            lim = self.const(t) if op == "<" else f"-{self.const(t)}"
            head = f"for (int {i} = 0; ZB({i} < {b}) && ZB({acc} {op} {lim}); {i}++)"
            self.stats["exits"] += 1
        self.loop_body(lines, ind, budget, nest, f"{sp}{head} {{", f"{sp}}}",
                       [(i, hi - 1)], lambda ind2: self.carried(acc, ind2, budget))

    def while_loop(self, lines, ind, budget, nest, do):
        """A while or do-while loop that exits on a data-dependent
        condition, capped by a counter so that it terminates."""
        r = self.r
        sp = "  " * ind
        acc = self.accumulator(lines, ind, budget)
        t = dict(self.scope)[acc]
        w = self.new("w")
        cap = r.choice([4, 6, 8, 12, 16])
        lines.append(f"{sp}int {w} = 0;")
        self.stats["while"] += 1
        self.stats["exits"] += 1
        e = self.expr(t, max(budget - 2, 0))
        kind = r.random()
        if kind < 0.35:
            # Grows until it passes a threshold.
            cond = f"ZB({acc} < {self.const(t)})"
            core = [subst("V += 0.3@ + (E) * (E);", t, V=acc, E=e)]
        elif kind < 0.7:
            # Shrinks until it is small.
            cond = f"ZB({acc} * {acc} > {self.fc('0.01', t)})"
            core = [subst("V *= 0.6@ + 0.2@ * tanh@(E);", t, V=acc, E=e)]
        else:
            cond = self.cond(max(budget - 1, 1))
            core = None
        self.touched.add(acc)

        def body(ind2):
            if core:
                return ["  " * ind2 + ln for ln in core]
            return self.carried(acc, ind2, budget)
        if do:
            self.loop_body(lines, ind, budget, nest, f"{sp}do {{",
                           f"{sp}}} while ({cond} && ++{w} < {cap});",
                           [(w, cap)], body)
        else:
            self.loop_body(lines, ind, budget, nest,
                           f"{sp}while ({w}++ < {cap} && {cond}) {{", f"{sp}}}",
                           [(w, cap)], body)

    def array_decl(self, lines, ind, budget, nest, pattern=False):
        """A local array, filled at once; with pattern, filled in a loop,
        updated in place and reduced into an accumulator by further loops."""
        r = self.r
        sp = "  " * ind
        t = "f" if self.flt(0.2) else "d"
        size = r.choice([4, 8, 8])
        q = self.new("q")
        self.stats["arrays"] += 1
        if not pattern:
            init = ", ".join(self.expr(t, max(budget - 2, 0))
                             for _ in range(r.randint(1, size)))
            lines.append(f"{sp}{ctype(t)} {q}[{size}] = {{{init}}};")
            self.arrays[q] = size
            self.scope.append((q, t.upper()))
            return
        acc = self.accumulator(lines, ind, budget)
        lines.append(f"{sp}{ctype(t)} {q}[{size}];")
        self.arrays[q] = size
        # Fill: every element, so that any later read is defined.
        i = self.new("i")
        self.loop_body(
            lines, ind, budget, nest,
            f"{sp}for (int {i} = 0; ZB({i} < {size}); {i}++) {{", f"{sp}}}",
            [(i, size - 1)],
            lambda ind2: [f"{'  ' * ind2}{q}[{i}] = {self.expr(t, max(budget - 1, 1))};"],
            fill=True)
        self.scope.append((q, t.upper()))
        # In place, forwards from a[i - 1] or backwards from a[i + 1],
        # sometimes repeated in an outer loop of passes.
        n_upd = r.choice([0, 1, 1, 2])
        for _ in range(n_upd):
            self.inplace(lines, ind, budget, nest, q, t, size)
        if t == "d" and size == 8 and self.hv in self.callable() and \
                r.random() < 0.5:
            # Passed to the array helper, which updates it in place.
            call = self.helper_call(dict(self.scope)[acc], budget - 1, self.hv)
            lines.append(f"{sp}{acc} += {call};")
        self.reduce_loop(lines, ind, budget, nest, acc, q, size)

    def reduce_loop(self, lines, ind, budget, nest, acc, q, size):
        sp = "  " * ind
        i = self.new("i")
        b = self.bound(size)
        self.loop_body(
            lines, ind, budget, nest,
            f"{sp}for (int {i} = 0; ZB({i} < {b}); {i}++) {{", f"{sp}}}",
            [(i, size - 1)],
            lambda ind2: self.reduce(acc, q, i, ind2, budget))

    def reduce(self, acc, q, i, ind, budget):
        t = dict(self.scope)[acc]
        # Read the element through a temporary scope entry, so that the
        # carried update's expression uses it.
        self.scope.append((f"{q}[{i}]", t))
        lines = self.carried(acc, ind, budget)
        if not any(f"{q}[{i}]" in ln for ln in lines):
            lines.append(f"{'  ' * ind}{acc} += {q}[{i}];")
        self.scope.pop()
        return lines

    def inplace(self, lines, ind, budget, nest, q, t, size):
        r = self.r
        sp = "  " * ind
        i = self.new("i")
        if r.random() < 0.6:
            b = self.bound(size)
            head = f"for (int {i} = 1; ZB({i} < {b}); {i}++)"
            other = f"{q}[{i} - 1]"
        else:
            head = f"for (int {i} = {self.bound(size)} - 2; ZB({i} >= 0); {i}--)"
            other = f"{q}[{i} + 1]"
        a = f"{q}[{i}]"

        def core(ind2):
            self.scope += [(a, t), (other, t)]
            e = self.expr(t, max(budget - 2, 0))
            self.scope = self.scope[:-2]
            return ["  " * ind2 + subst(r.choice(INPLACE), t, A=a, B=other, E=e)]
        if self.depth + 2 <= MAX_DEPTH and r.random() < 0.3:
            # Several passes over the array.
            p = self.new("i")
            passes = self.bound(4)
            self.stats["loops"] += 1
            self.depth += 1
            self.scope.append((p, "i"))
            self.imax[p] = 3
            lines.append(f"{sp}for (int {p} = 0; ZB({p} < {passes}); {p}++) {{")
            self.loop_body(lines, ind + 1, budget, nest, f"{sp}  {head} {{",
                           f"{sp}  }}", [(i, size - 1)], core)
            lines.append(f"{sp}}}")
            self.scope.pop()
            self.depth -= 1
        else:
            self.loop_body(lines, ind, budget, nest, f"{sp}{head} {{",
                           f"{sp}}}", [(i, size - 1)], core)

    def array_store(self, lines, ind, budget):
        sp = "  " * ind
        e = self.elem("d")
        # elem() may convert; store through the plain element.
        m = re.search(r"\b(q\d+|p)\[.*\]$", e)
        target = m.group(0)
        t = dict(self.scope)[m.group(1)].lower()
        op = self.r.choice(["=", "+=", "-="])
        lines.append(f"{sp}{target} {op} {self.expr(t, max(budget - 1, 0))};")

    # -- functions -----------------------------------------------------------

    def function(self, fn, nstmts, budget):
        self.fn = fn
        self.scope = list(fn.params)
        self.mutable = set()
        self.callees = fn.callees
        self.returned_early = 0
        self.fdepth = 0
        self.called_depth = 0
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
            if fn is self.hv:
                self.hv_body(lines, budget)
            self.block(lines, 1, budget, 0, nstmts)
            if fn.name == "f" and self.loop_p and not self.stats["loops"]:
                # A loop case without a loop so far: one at function level.
                self.scope = list(fn.params) + self.all_locals(lines)
                self.loop_stmt(lines, 1, budget, 0)
            self.scope = list(fn.params) + self.all_locals(lines)
            lines.append(f"  return {self.ret_expr(fn.ret, budget)};")
        fn.depth = self.fdepth + self.called_depth
        return lines

    def hv_body(self, lines, budget):
        """The array helper hv(p, a0, n): loops over the caller's array p
        of 8 doubles, updating it in place and reducing it."""
        self.scope.append(("p", "D"))
        self.arrays["p"] = 8
        acc = self.accumulator(lines, 1, budget)
        for _ in range(self.r.choice([1, 1, 2])):
            self.inplace(lines, 1, budget, 0, "p", "d", 8)
        self.reduce_loop(lines, 1, budget, 0, acc, "p", 8)

    def all_locals(self, lines):
        """Locals declared at function level (indent 1), for the return."""
        out = []
        for ln in lines:
            m = re.match(r"^  (double|float) ([tq]\d+)( = |\[)", ln)
            if m:
                t = "d" if m.group(1) == "double" else "f"
                out.append((m.group(2), t if m.group(3) == " = " else t.upper()))
        return out

    def ret_expr(self, t, budget):
        locs = [n for n, vt in self.scope if n.startswith("t")]
        e = self.expr(t, budget)
        # The last locals, and most of those that loops computed.
        for j, n in enumerate(locs):
            p = 0.8 if n in self.touched else 0.6 if j >= len(locs) - 3 else 0
            if self.r.random() < p:
                e = f"{e} {self.r.choice('+-*' if j >= len(locs) - 3 else '+-')} {n}"
        return e


def render(text, shadow):
    """Text of the functions, clean (for AD) or as the recording shadow."""
    if not shadow:
        text = text.replace("ZB(", "(").replace("ZS(", "(")
        return text.replace("ZI(", "(int)(")
    text = text.replace("ZB(", "zz_b(").replace("ZS(", "zz_s(")
    text = text.replace("ZI(", "zz_i(")
    text = re.sub(r"\b(" + "|".join(KINKED) + r")(f?)\(", r"zz_\1\2(", text)
    return re.sub(r"\b(f|h\d+|hr|hv)\(", r"\1_p(", text)


def generate(seed, loops):
    g = Gen(seed, loops)
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
    # Sometimes hv, which loops over an array of its caller.
    if g.loop_p and r.random() < 0.3:
        g.hv = Fn("hv", "d", [("p", "P"), ("a0", "d"), ("n", "i")],
                  [rec] if rec else [])
        for fn in helpers + [f]:
            fn.callees.append(g.hv)
    body = []
    order = ([rec] if rec else []) + ([g.hv] if g.hv else []) + \
        list(reversed(helpers))
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
    body.append(f.prototype() + " {")
    body += lines
    body.append("}")
    text = "\n".join(body) + "\n"
    # Whether float is used anywhere, for the finite-difference tolerances.
    floats = bool(g.uses_float or "float" in text or re.search(r"[0-9]f\b", text))
    return f, text, floats, g.stats, int(rec is not None) + g.tailrec, r


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
        # k feeds the trip counts, as (k & 7) + 1 and the like.
        k = r.randint(0, 9)
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
    sig = ", ".join(ctype(t) for _, t in f.params)
    out.append(CHECKER.format(nx=nx, h=h, rtol=rtol, eps=eps, smooth=smooth,
                              args=args, ret=ctype(f.ret), sig=sig))
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

/* Whether f raises overflow, division by zero or invalid at x: then some
 * intermediate is infinite or NaN, and even where that does not reach the
 * result (fmin(inf, y), 0 * inf in a dead branch of a select) the
 * derivative rules combine it into inf or NaN, as in any AD tool.  Through
 * a volatile pointer, so that the compiler cannot move f's arithmetic
 * across the flag tests. */
static {ret} (*volatile zz_fptr)({sig}) = f;
static int zz_fpe(const double *x, int k) {{
  feclearexcept(FE_ALL_EXCEPT);
  (void)zz_fptr({args});
  return fetestexcept(FE_OVERFLOW | FE_DIVBYZERO | FE_INVALID) != 0;
}}
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
  if (!isfinite(f0) || fabs(f0) > 1e12 || zz_fpe(x, k)) {{
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
    ap.add_argument("--no-loops", action="store_true",
                    help="generate no loops (as the generator did before "
                         "Zymase supported them)")
    ap.add_argument("-o", "--output", help="output file (default stdout)")
    a = ap.parse_args()
    f, text, floats, st, rec, r = generate(a.seed, not a.no_loops)
    src = []
    src.append(f"// zzfuzz seed={a.seed} loops={st['loops']} "
               f"depth={st['depth']} while={st['while']} "
               f"arrays={st['arrays']} exits={st['exits']} float={int(floats)} "
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
