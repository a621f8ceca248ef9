/* registry.c - reads Enzyme's registration globals and annotations of a
 * module: custom gradients, inactive functions and globals, functions
 * like a math function.  Anything named like one that Zymase does not
 * implement is an error.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "registry.h"

#include "llvm/glue.h"
#include "support/diag.h"
#include "support/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Of the current module. */
static ZyVec customs;                  /* ZyCustom*                      */
static ZyVec fwd_customs;              /* ZyFwdCustom*                   */
static ZyMap like;    /* function -> (char *) name, owned by names */
static ZyVec names;
static ZyVec inactive_fns, inactive_globals;
static ZyVec nofree_fns, recompute_fns; /* enzyme_nofree, _shouldrecompute */
static ZyMap shadows; /* global -> the shadow the user supplied */
static ZyVec allocators; /* ZyAllocLike*                     */

static LLVMValueRef strip_casts(LLVMValueRef v) {
  while (v && LLVMIsAConstantExpr(v) && LLVMGetNumOperands(v) > 0 &&
         !LLVMIsAGlobalValue(v))
    v = LLVMGetOperand(v, 0);
  return v;
}

static int starts_with(const char *s, const char *p) {
  return !strncmp(s, p, strlen(p));
}

/* Element `i` of a constant array or struct, without casts (NULL if there
 * is none). */
static LLVMValueRef element(LLVMValueRef c, unsigned i) {
  if (!c)
    return NULL;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(c));
  unsigned n = k == LLVMArrayTypeKind    ? LLVMGetArrayLength(LLVMTypeOf(c))
               : k == LLVMStructTypeKind ? LLVMCountStructElementTypes(LLVMTypeOf(c))
                                         : 0;
  return i < n ? strip_casts(LLVMGetAggregateElement(c, i)) : NULL;
}

static unsigned elements(LLVMValueRef c) {
  LLVMTypeKind k = c ? LLVMGetTypeKind(LLVMTypeOf(c)) : LLVMVoidTypeKind;
  return k == LLVMArrayTypeKind    ? LLVMGetArrayLength(LLVMTypeOf(c))
         : k == LLVMStructTypeKind ? LLVMCountStructElementTypes(LLVMTypeOf(c))
                                   : 0;
}

/* The C string a constant points to, or NULL. */
static const char *string_of(LLVMValueRef p) {
  p = strip_casts(p);
  LLVMValueRef init =
      p && LLVMIsAGlobalVariable(p) ? LLVMGetInitializer(p) : NULL;
  size_t len;
  const char *s = init && LLVMIsAConstantDataSequential(init)
                      ? LLVMGetAsString(init, &len)
                      : NULL;
  return s && memchr(s, 0, len) ? s : NULL;
}

/* "'name' (file.c:12): " for messages about global `gv` (NULL: ""). */
static const char *where(LLVMValueRef gv) {
  static char buf[512];
  char loc[400];
  if (!gv)
    buf[0] = 0;
  else if (zy_llvm_global_location(gv, loc, sizeof loc))
    snprintf(buf, sizeof buf, "'%s' (%s): ", LLVMGetValueName(gv), loc);
  else
    snprintf(buf, sizeof buf, "'%s': ", LLVMGetValueName(gv));
  return buf;
}

/* Reports an error about registration `gv`, located at the function it
 * registers (or at the first function of the module). */
static int reg_error(LLVMModuleRef m, LLVMValueRef gv, LLVMValueRef fn,
                     const char *hint, const char *what) {
  if (!fn || !LLVMIsAFunction(fn))
    fn = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !fn;
       f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f))
      fn = f;
  if (!fn)
    fn = LLVMGetFirstFunction(m);
  if (!fn) { /* nothing to locate the diagnostic at */
    fprintf(stderr, "error: [zymase:bad-registration] %s%s\n", where(gv),
            what);
    return -1;
  }
  return zy_error(ZY_ERR_BAD_REGISTRATION, fn, NULL, hint, "%s%s",
                  where(gv), what);
}

static void mark_inactive(LLVMValueRef v) {
  v = strip_casts(v);
  if (v && LLVMIsAFunction(v))
    zy_vec_push(&inactive_fns, v);
  else if (v && LLVMIsAGlobalVariable(v))
    zy_vec_push(&inactive_globals, v);
}

/* A pointer constant, or an array/struct of them. */
static void mark_inactive_all(LLVMValueRef c) {
  unsigned n = elements(c);
  if (!n) {
    mark_inactive(c);
    return;
  }
  for (unsigned i = 0; i < n; i++)
    mark_inactive_all(LLVMGetAggregateElement(c, i));
}

static int add_custom(LLVMModuleRef m, LLVMValueRef gv) {
  LLVMValueRef init = LLVMGetInitializer(gv);
  LLVMValueRef f[3] = {element(init, 0), element(init, 1), element(init, 2)};
  const char *hint = "write void *__enzyme_register_gradient_f[3] = "
                     "{(void *)f, (void *)augment_f, (void *)gradient_f};";
  if (elements(init) != 3 || !f[0] || !f[1] || !f[2] ||
      !LLVMIsAFunction(f[0]) || !LLVMIsAFunction(f[1]) ||
      !LLVMIsAFunction(f[2]))
    return reg_error(m, gv, f[0], hint,
                     "a gradient registration must hold three functions: "
                     "the function, its augmented forward pass and its "
                     "reverse pass");
  for (size_t i = 0; i < customs.len; i++)
    if (((ZyCustom *)customs.data[i])->fn == f[0])
      return reg_error(m, gv, f[0], NULL,
                       "a second custom gradient for the same function");
  ZyCustom *c = malloc(sizeof *c);
  *c = (ZyCustom){.fn = f[0], .aug = f[1], .rev = f[2], .reg = gv};
  zy_vec_push(&customs, c);
  return 0;
}

/* Whether a parameter of type `t` has a shadow or tangent in a custom
 * forward derivative: 1 (a pointer or floating-point value), 0 (an
 * integer), -1 (another type, which Zymase does not pass). */
static int shadow_kind(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMVectorTypeKind)
    k = LLVMGetTypeKind(LLVMGetElementType(t));
  switch (k) {
  case LLVMPointerTypeKind:
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
    return 1;
  case LLVMIntegerTypeKind:
    return 0;
  default:
    return -1;
  }
}

/* Whether df's parameters are f's, each with a shadow after it where
 * shadow_kind says so; 0 when not (or f has another kind of parameter). */
static int fwd_params_match(LLVMTypeRef ft, LLVMTypeRef dt) {
  unsigned n = LLVMCountParamTypes(ft), nd = LLVMCountParamTypes(dt);
  if (n > 64 || nd > 128 || LLVMIsFunctionVarArg(ft))
    return 0;
  LLVMTypeRef p[64], d[128];
  LLVMGetParamTypes(ft, p);
  LLVMGetParamTypes(dt, d);
  unsigned j = 0;
  for (unsigned k = 0; k < n; k++) {
    int sk = shadow_kind(p[k]);
    if (sk < 0 || j + 1 + (unsigned)sk > nd || d[j] != p[k] ||
        (sk && d[j + 1] != p[k]))
      return 0;
    j += 1 + (unsigned)sk;
  }
  return j == nd;
}

static int add_fwd_custom(LLVMModuleRef m, LLVMValueRef gv) {
  LLVMValueRef init = LLVMGetInitializer(gv);
  LLVMValueRef f = element(init, 0), d = element(init, 1);
  if (elements(init) != 2 || !f || !d || !LLVMIsAFunction(f) ||
      !LLVMIsAFunction(d))
    return reg_error(m, gv, f,
                     "write void *__enzyme_register_derivative_f[2] = "
                     "{(void *)f, (void *)forward_f};",
                     "a forward derivative registration must hold two "
                     "functions: the function and its forward derivative");
  for (size_t i = 0; i < fwd_customs.len; i++)
    if (((ZyFwdCustom *)fwd_customs.data[i])->fn == f)
      return reg_error(m, gv, f, NULL,
                       "a second forward derivative for the same function");
  LLVMTypeRef ft = LLVMGlobalGetValueType(f), dt = LLVMGlobalGetValueType(d);
  LLVMTypeRef r = LLVMGetReturnType(ft), dr = LLVMGetReturnType(dt);
  int tangent_only = 0, ok = fwd_params_match(ft, dt);
  if (LLVMGetTypeKind(r) == LLVMVoidTypeKind || shadow_kind(r) == 0)
    ok &= dr == r;
  else if (shadow_kind(r) > 0 && dr == r)
    tangent_only = 1;
  else
    ok &= shadow_kind(r) > 0 && LLVMGetTypeKind(dr) == LLVMStructTypeKind &&
          LLVMCountStructElementTypes(dr) == 2 &&
          LLVMStructGetTypeAtIndex(dr, 0) == r &&
          LLVMStructGetTypeAtIndex(dr, 1) == r;
  if (!ok)
    return reg_error(
        m, gv, f,
        "the forward derivative takes the function's parameters, each "
        "pointer and floating-point one followed by its shadow or tangent "
        "(double f(double *x, int n) -> double df(double *x, double *dx, "
        "int n)), and returns nothing for a void function, else the "
        "result's tangent or the struct {result, tangent}",
        "the forward derivative's type does not fit the function");
  ZyFwdCustom *c = malloc(sizeof *c);
  *c = (ZyFwdCustom){
      .fn = f, .deriv = d, .reg = gv, .tangent_only = tangent_only};
  zy_vec_push(&fwd_customs, c);
  return 0;
}

static int add_like(LLVMModuleRef m, LLVMValueRef gv, LLVMValueRef fn,
                    const char *name) {
  if (!fn || !LLVMIsAFunction(fn) || !name || !*name)
    return reg_error(m, gv, fn,
                     "write void *__enzyme_function_like_f[2] = {(void *)f, "
                     "(void *)\"log1p\"};",
                     "a function_like registration must hold a function "
                     "and the name of a math function");
  char *s = strdup(name);
  zy_vec_push(&names, s);
  zy_map_put(&like, fn, s);
  return 0;
}

/* Parses the deallocator's argument list "2,-1" of registration `a`
 * into a->args; 0 when it is not a list of integers with exactly one -1
 * and indices of the allocator's parameters. */
static int parse_dealloc_args(ZyAllocLike *a, const char *s, unsigned nparams) {
  int blocks = 0;
  a->nargs = 0;
  for (;;) {
    char *end;
    while (*s == ' ')
      s++;
    long v = strtol(s, &end, 10);
    if (end == s || a->nargs == ZY_ALLOC_LIKE_MAX_ARGS || v < -1 ||
        (v >= 0 && (unsigned long)v >= nparams))
      return 0;
    if (v < 0)
      a->block = a->nargs, blocks++;
    a->args[a->nargs++] = (int)v;
    for (s = end; *s == ' '; s++)
      ;
    if (!*s)
      return blocks == 1;
    if (*s++ != ',')
      return 0;
  }
}

/* Whether the deallocator's parameters take what a->args passes: the
 * allocator's arguments of the same types, and the block (a pointer). */
static int dealloc_fits(const ZyAllocLike *a) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(a->dealloc);
  if (LLVMCountParams(a->dealloc) != a->nargs)
    return 0;
  for (unsigned k = 0; k < a->nargs; k++) {
    LLVMTypeRef want = a->args[k] < 0
                           ? LLVMGetReturnType(LLVMGlobalGetValueType(a->fn))
                           : LLVMTypeOf(LLVMGetParam(a->fn, a->args[k]));
    if (LLVMTypeOf(LLVMGetParam(a->dealloc, k)) != want)
      return 0;
  }
  return !LLVMIsFunctionVarArg(ft);
}

/* {allocator, (void *)size index, (void *)"dealloc args", deallocator}. */
static int add_alloc_like(LLVMModuleRef m, LLVMValueRef gv) {
  LLVMValueRef init = LLVMGetInitializer(gv);
  LLVMValueRef fn = element(init, 0), size = element(init, 1);
  LLVMValueRef dealloc = element(init, 3);
  const char *args = string_of(element(init, 2));
  const char *hint = "write void *__enzyme_allocation_like[4] = {(void *)"
                     "alloc, (void *)SIZE_ARG, (void *)\"ARG,-1\", (void *)"
                     "dealloc};";
  if (elements(init) != 4)
    return reg_error(m, gv, fn, hint,
                     "an allocation_like registration must hold four "
                     "entries: the allocator, the index of its size "
                     "argument, the deallocator's arguments and the "
                     "deallocator");
  if (!fn || !LLVMIsAFunction(fn) ||
      LLVMGetTypeKind(LLVMGetReturnType(LLVMGlobalGetValueType(fn))) !=
          LLVMPointerTypeKind ||
      LLVMCountParams(fn) > 64)
    return reg_error(m, gv, fn, hint,
                     "the allocator of an allocation_like registration must "
                     "be a function returning a pointer");
  if (!dealloc || !LLVMIsAFunction(dealloc))
    return reg_error(m, gv, fn, hint,
                     "the deallocator of an allocation_like registration "
                     "must be a function");
  ZyAllocLike a = {.fn = fn, .dealloc = dealloc, .reg = gv};
  unsigned n = LLVMCountParams(fn);
  unsigned long long idx = size && LLVMIsAConstantInt(size)
                               ? LLVMConstIntGetZExtValue(size)
                               : ~0ull;
  if (size && LLVMIsAConstantPointerNull(size))
    idx = 0; /* (void *)0 */
  char what[400];
  if (idx >= n ||
      LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(fn, (unsigned)idx))) !=
          LLVMIntegerTypeKind) {
    snprintf(what, sizeof what,
             "the size index of an allocation_like registration must be a "
             "constant naming an integer parameter of '%s' (it has %u "
             "parameters)",
             LLVMGetValueName(fn), n);
    return reg_error(m, gv, fn, hint, what);
  }
  a.size = (unsigned)idx;
  if (!args || !parse_dealloc_args(&a, args, n)) {
    snprintf(what, sizeof what,
             "the deallocator's arguments of an allocation_like "
             "registration must be a string of comma-separated indices of "
             "parameters of '%s' (0 to %u) and one -1 for the block, not "
             "%s%s%s",
             LLVMGetValueName(fn), n ? n - 1 : 0, args ? "\"" : "",
             args ? args : "a string", args ? "\"" : "");
    return reg_error(m, gv, fn, hint, what);
  }
  if (!dealloc_fits(&a)) {
    snprintf(what, sizeof what,
             "the deallocator '%s' does not take the arguments \"%s\" "
             "describes (the allocator's arguments of the same types, and "
             "the block)",
             LLVMGetValueName(dealloc), args);
    return reg_error(m, gv, fn, hint, what);
  }
  for (size_t i = 0; i < allocators.len; i++) {
    const ZyAllocLike *o = allocators.data[i];
    if (o->fn == fn)
      return reg_error(m, gv, fn, NULL,
                       "a second allocation_like registration for the same "
                       "allocator");
    if (o->dealloc == dealloc && o->block != a.block)
      return reg_error(m, gv, fn, NULL,
                       "the deallocator is registered with the block at "
                       "two different arguments");
  }
  ZyAllocLike *p = malloc(sizeof *p);
  *p = a;
  zy_vec_push(&allocators, p);
  return 0;
}

/* One entry of llvm.global.annotations: annotate("enzyme_...") on a
 * function or global. */
/* The functions in constant `c` (one, or an array or struct of them),
 * added to `list`; 0 when `c` holds something else. */
static int add_functions(ZyVec *list, LLVMValueRef c) {
  c = strip_casts(c);
  unsigned n = elements(c);
  if (!n) {
    if (!c || !LLVMIsAFunction(c))
      return 0;
    if (!zy_vec_contains(list, c))
      zy_vec_push(list, c);
    return 1;
  }
  for (unsigned i = 0; i < n; i++)
    if (!add_functions(list, LLVMGetAggregateElement(c, i)))
      return 0;
  return 1;
}

/* enzyme_nofree: the function frees no memory (the registry says so; the
 * function itself is left as it is); enzyme_shouldrecompute: the reverse
 * sweep calls it again rather than caching its result. */
static int add_hint(LLVMModuleRef m, LLVMValueRef gv, LLVMValueRef c,
                    int nofree) {
  if (!add_functions(nofree ? &nofree_fns : &recompute_fns, c))
    return reg_error(m, gv, NULL, "list functions: {(void *)f, ...}",
                     nofree ? "an enzyme_nofree registration must name "
                              "functions"
                            : "an enzyme_shouldrecompute registration must "
                              "name functions");
  return 0;
}

static int read_annotation(LLVMModuleRef m, LLVMValueRef e) {
  LLVMValueRef target = element(e, 0);
  const char *s = string_of(element(e, 1));
  if (!s || !starts_with(s, "enzyme_"))
    return 0;
  if (!strcmp(s, "enzyme_inactive")) {
    mark_inactive(target);
    return 0;
  }
  if (starts_with(s, "enzyme_function_like="))
    return add_like(m, NULL, target, s + strlen("enzyme_function_like="));
  if (!strcmp(s, "enzyme_nofree") || !strcmp(s, "enzyme_shouldrecompute"))
    return add_hint(m, NULL, target, !strcmp(s, "enzyme_nofree"));
  char what[256];
  snprintf(what, sizeof what,
           "the annotation '%s' on '%s' is not implemented by Zymase", s,
           target ? LLVMGetValueName(target) : "?");
  return reg_error(m, NULL, target,
                   "Zymase implements enzyme_inactive, "
                   "enzyme_function_like(\"name\"), enzyme_nofree and "
                   "enzyme_shouldrecompute",
                   what);
}

static void clear(void) {
  for (size_t i = 0; i < customs.len; i++)
    free(customs.data[i]);
  customs.len = 0;
  for (size_t i = 0; i < fwd_customs.len; i++)
    free(fwd_customs.data[i]);
  fwd_customs.len = 0;
  for (size_t i = 0; i < names.len; i++)
    free(names.data[i]);
  names.len = 0;
  zy_map_free(&like);
  inactive_fns.len = inactive_globals.len = 0;
  nofree_fns.len = recompute_fns.len = 0;
  zy_map_free(&shadows);
  for (size_t i = 0; i < allocators.len; i++)
    free(allocators.data[i]);
  allocators.len = 0;
}

/* {&global, &shadow, ...} pairs. */
static int add_shadows(LLVMModuleRef m, LLVMValueRef gv) {
  LLVMValueRef init = LLVMGetInitializer(gv);
  unsigned n = elements(init);
  for (unsigned k = 0; k + 1 < n; k += 2) {
    LLVMValueRef p = element(init, k), s = element(init, k + 1);
    if (!p || !s || !LLVMIsAGlobalVariable(p) || !LLVMIsAGlobalVariable(s) ||
        LLVMGlobalGetValueType(p) != LLVMGlobalGetValueType(s))
      break;
    zy_map_put(&shadows, p, s);
  }
  if (n && n % 2 == 0 && zy_map_has(&shadows, element(init, n - 2)))
    return 0;
  return reg_error(m, gv, NULL,
                   "write void *__enzyme_shadow_global[] = {&g, &dg};",
                   "a shadow registration must hold pairs of globals of the "
                   "same type: each global, then its shadow");
}

int zy_registry_device_var_call(LLVMValueRef call) {
  LLVMValueRef f = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
  if (!f || !LLVMIsAFunction(f))
    return 0;
  static const char *const names[] = {
      "__cudaRegisterVar", "__cudaRegisterManagedVar", "__hipRegisterVar",
      "__hipRegisterManagedVar"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(LLVMGetValueName(f), names[i]))
      return 1;
  return 0;
}

int zy_registry_host_copy(LLVMValueRef g) {
  for (LLVMUseRef u = LLVMGetFirstUse(g); u; u = LLVMGetNextUse(u))
    if (zy_registry_device_var_call(LLVMGetUser(u)))
      return 1;
  return 0;
}

/* The registration prefixes Zymase implements, and those it knows but
 * does not implement.  A device variable's host copy is skipped: the
 * device side reads the registration. */
static int read_global(LLVMModuleRef m, LLVMValueRef g) {
  const char *name = LLVMGetValueName(g);
  LLVMValueRef init = LLVMGetInitializer(g);
  if (!strcmp(name, "llvm.global.annotations")) {
    int err = 0;
    for (unsigned i = 0; i < elements(init); i++)
      err |= read_annotation(m, LLVMGetAggregateElement(init, i));
    return err;
  }
  if (!starts_with(name, "__enzyme_") || !init || zy_registry_host_copy(g))
    return 0;
  if (starts_with(name, "__enzyme_register_gradient"))
    return add_custom(m, g);
  if (starts_with(name, "__enzyme_register_derivative"))
    return add_fwd_custom(m, g);
  if (starts_with(name, "__enzyme_inactivefn") ||
      starts_with(name, "__enzyme_inactive_global")) {
    mark_inactive_all(init);
    return 0;
  }
  if (starts_with(name, "__enzyme_shadow_global"))
    return add_shadows(m, g);
  if (starts_with(name, "__enzyme_function_like"))
    return add_like(m, g, element(init, 0), string_of(element(init, 1)));
  if (starts_with(name, "__enzyme_allocation_like"))
    return add_alloc_like(m, g);
  if (starts_with(name, "__enzyme_nofree") ||
      starts_with(name, "__enzyme_shouldrecompute"))
    return add_hint(m, g, init, starts_with(name, "__enzyme_nofree"));
  static const char *const known_unimplemented[] = {
      "__enzyme_register_splitderivative", /* forward mode */
      "__enzyme_sparse_accumulate"};
  const char *what = "Zymase does not implement this registration";
  for (size_t i = 0; i < sizeof known_unimplemented / sizeof(char *); i++)
    if (starts_with(name, known_unimplemented[i]))
      what = "Zymase does not implement this kind of registration yet";
  return reg_error(m, g, element(init, 0),
                   "Zymase implements __enzyme_register_gradient*, "
                   "__enzyme_register_derivative*, __enzyme_inactivefn*, __enzyme_inactive_global*, "
                   "__enzyme_function_like*, __enzyme_shadow_global*, "
                   "__enzyme_allocation_like*, __enzyme_nofree* and "
                   "__enzyme_shouldrecompute*",
                   what);
}

int zy_registry_scan(LLVMModuleRef m) {
  clear();
  int before = zy_error_count();
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    read_global(m, g);
  return zy_error_count() - before;
}

void zy_registry_protect(LLVMModuleRef m) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetInitializer(g) && starts_with(LLVMGetValueName(g), "__enzyme_"))
      zy_llvm_keep_alive(g);
}

const ZyCustom *zy_registry_custom(LLVMValueRef fn) {
  for (size_t i = 0; fn && i < customs.len; i++)
    if (((ZyCustom *)customs.data[i])->fn == fn)
      return customs.data[i];
  return NULL;
}

const ZyFwdCustom *zy_registry_fwd_custom(LLVMValueRef fn) {
  for (size_t i = 0; fn && i < fwd_customs.len; i++)
    if (((ZyFwdCustom *)fwd_customs.data[i])->fn == fn)
      return fwd_customs.data[i];
  return NULL;
}

int zy_registry_any_custom(LLVMValueRef fn) {
  return zy_registry_custom(fn) || zy_registry_fwd_custom(fn);
}

const ZyAllocLike *zy_registry_allocator(LLVMValueRef fn) {
  for (size_t i = 0; fn && i < allocators.len; i++)
    if (((ZyAllocLike *)allocators.data[i])->fn == fn)
      return allocators.data[i];
  return NULL;
}

const ZyAllocLike *zy_registry_deallocator(LLVMValueRef fn) {
  for (size_t i = 0; fn && i < allocators.len; i++)
    if (((ZyAllocLike *)allocators.data[i])->dealloc == fn)
      return allocators.data[i];
  return NULL;
}

const char *zy_registry_function_like(LLVMValueRef fn) {
  return fn ? zy_map_get(&like, fn) : NULL;
}

int zy_registry_inactive_function(LLVMValueRef fn) {
  return zy_vec_contains(&inactive_fns, fn) ||
         (fn && LLVMIsAFunction(fn) &&
          LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                        "enzyme_inactive", 15));
}

LLVMValueRef zy_registry_shadow_global(LLVMValueRef gv) {
  return gv ? zy_map_get(&shadows, gv) : NULL;
}

int zy_registry_nofree(LLVMValueRef fn) {
  return fn && LLVMIsAFunction(fn) &&
         (zy_vec_contains(&nofree_fns, fn) ||
          LLVMGetEnumAttributeAtIndex(
              fn, LLVMAttributeFunctionIndex,
              LLVMGetEnumAttributeKindForName("nofree", 6)));
}

int zy_registry_should_recompute(LLVMValueRef fn) {
  return fn && zy_vec_contains(&recompute_fns, fn);
}

int zy_registry_inactive_global(LLVMValueRef gv) {
  return zy_vec_contains(&inactive_globals, gv);
}

int zy_registry_differentiable(LLVMValueRef fn) {
  return fn && LLVMIsAFunction(fn) &&
         (!LLVMIsDeclaration(fn) || zy_registry_custom(fn));
}
