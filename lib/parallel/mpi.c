/* mpi.c - MPI calls in differentiated code (recognized by
 * calls/mpi_calls.c through the table in mpi.def): the two ABIs (Open MPI's handles
 * are addresses of ompi_* globals, MPICH's are integers), the check step,
 * and helpers that emit MPI calls for the adjoint builders.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_call.h"

#include "parallel.h"

#include "ad/runtime.h"

#include <stdio.h>
#include <string.h>

int zy_mpi_index(const ZyMpiRow *r, char letter, int nth) {
  for (int k = 0; r->args[k]; k++)
    if (r->args[k] == letter && nth-- == 0)
      return k;
  return -1;
}

LLVMValueRef zy_mpi_arg(ZyMpiCall *c, char letter, int nth) {
  int k = zy_mpi_index(c->row, letter, nth);
  return k < 0 ? NULL : LLVMGetOperand(c->call, (unsigned)k);
}

LLVMValueRef zy_mpi_buffer(ZyMpiCall *c, int nth) {
  for (int k = 0; c->row->args[k]; k++)
    if (strchr("brB", c->row->args[k]) && nth-- == 0)
      return LLVMGetOperand(c->call, (unsigned)k);
  return NULL;
}

void zy_mpi_init(ZyMpiCall *c, ZyGen *g, LLVMValueRef call) {
  memset(c, 0, sizeof *c);
  c->g = g;
  c->call = call;
  c->row = zy_mpi_row(LLVMGetCalledValue(call));
  zy_mpi_name(LLVMGetCalledValue(call), &c->pmpi);
  c->b = g->b;
  c->ctx = g->zm->ctx;
  c->mod = g->zm->mod;
  c->i1 = LLVMInt1TypeInContext(c->ctx);
  c->i8 = LLVMInt8TypeInContext(c->ctx);
  c->i32 = LLVMInt32TypeInContext(c->ctx);
  c->i64 = LLVMInt64TypeInContext(c->ctx);
  c->ptr = LLVMPointerTypeInContext(c->ctx, 0);
  /* The ABI from the type of a handle argument of the call, or (Wait)
   * from the module: Open MPI's handles are its ompi_* globals. */
  LLVMValueRef h = zy_mpi_arg(c, 'c', 0);
  if (!h)
    h = zy_mpi_arg(c, 't', 0);
  if (h) {
    c->mpich = LLVMGetTypeKind(LLVMTypeOf(h)) == LLVMIntegerTypeKind;
  } else {
    c->mpich = 1;
    for (LLVMValueRef gv = LLVMGetFirstGlobal(c->mod); gv && c->mpich;
         gv = LLVMGetNextGlobal(gv))
      c->mpich = strncmp(LLVMGetValueName(gv), "ompi_", 5) != 0;
  }
  c->h = c->mpich ? c->i32 : c->ptr;
}

/* The global an Open MPI handle is the address of, or NULL. */
static const char *ompi_global(LLVMValueRef v) {
  while (LLVMIsAConstantExpr(v) && (LLVMGetConstOpcode(v) == LLVMBitCast ||
                                    LLVMGetConstOpcode(v) == LLVMAddrSpaceCast))
    v = LLVMGetOperand(v, 0);
  if (!LLVMIsAGlobalValue(v))
    return NULL;
  const char *s = LLVMGetValueName(v);
  return !strncmp(s, "ompi_mpi_", 9) ? s + 9 : NULL;
}

static int in_list(const char *s, const char *const *l) {
  for (; *l; l++)
    if (!strcmp(s, *l))
      return 1;
  return 0;
}

ZyMpiElem zy_mpi_elem(LLVMValueRef dt) {
  static const char *const ints[] = {"char",
                                     "signed_char",
                                     "unsigned_char",
                                     "byte",
                                     "wchar",
                                     "short",
                                     "unsigned_short",
                                     "int",
                                     "unsigned",
                                     "long",
                                     "unsigned_long",
                                     "long_long_int",
                                     "unsigned_long_long",
                                     "int8_t",
                                     "int16_t",
                                     "int32_t",
                                     "int64_t",
                                     "uint8_t",
                                     "uint16_t",
                                     "uint32_t",
                                     "uint64_t",
                                     "c_bool",
                                     "aint",
                                     "offset",
                                     "count",
                                     "cxx_bool",
                                     "2int",
                                     NULL};
  static const unsigned mpich_ints[] = {
      0x4c000101, 0x4c000118, 0x4c000102, 0x4c00010d, 0x4c00040e, 0x4c000203,
      0x4c000204, 0x4c000405, 0x4c000406, 0x4c000807, 0x4c000808, 0x4c000809,
      0x4c000819, 0x4c000137, 0x4c000238, 0x4c000439, 0x4c00083a, 0x4c00013b,
      0x4c00023c, 0x4c00043d, 0x4c00083e, 0x4c00013f, 0x4c000816, 0x4c000843};
  const char *s = ompi_global(dt);
  if (s && !strcmp(s, "double_int"))
    return ZY_MPI_EL_DOUBLE_INT;
  if (s && !strcmp(s, "float_int"))
    return ZY_MPI_EL_FLOAT_INT;
  if (s)
    return !strcmp(s, "double")  ? ZY_MPI_EL_DOUBLE
           : !strcmp(s, "float") ? ZY_MPI_EL_FLOAT
           : in_list(s, ints)    ? ZY_MPI_EL_NONE
                                 : ZY_MPI_EL_UNKNOWN;
  if (!LLVMIsAConstantInt(dt))
    return ZY_MPI_EL_UNKNOWN;
  unsigned v = (unsigned)LLVMConstIntGetZExtValue(dt);
  if (v == 0x4c00080b)
    return ZY_MPI_EL_DOUBLE;
  if (v == 0x4c00040a)
    return ZY_MPI_EL_FLOAT;
  if (v == 0x8c000001)
    return ZY_MPI_EL_DOUBLE_INT;
  if (v == 0x8c000000)
    return ZY_MPI_EL_FLOAT_INT;
  for (unsigned k = 0; k < sizeof mpich_ints / sizeof *mpich_ints; k++)
    if (v == mpich_ints[k])
      return ZY_MPI_EL_NONE;
  return ZY_MPI_EL_UNKNOWN;
}

ZyMpiOp zy_mpi_op(LLVMValueRef op) {
  static const char *const names[] = {"op_sum", "op_prod",   "op_max",
                                      "op_min", "op_minloc", "op_maxloc"};
  const char *s = ompi_global(op);
  for (int k = 0; s && k < 6; k++)
    if (!strcmp(s, names[k]))
      return (ZyMpiOp)k;
  if (LLVMIsAConstantInt(op)) {
    unsigned v = (unsigned)LLVMConstIntGetZExtValue(op);
    if (v == 0x58000003)
      return ZY_MPI_SUM;
    if (v == 0x58000004)
      return ZY_MPI_PROD;
    if (v == 0x58000001)
      return ZY_MPI_MAX;
    if (v == 0x58000002)
      return ZY_MPI_MIN;
    if (v == 0x5800000b)
      return ZY_MPI_MINLOC;
    if (v == 0x5800000c)
      return ZY_MPI_MAXLOC;
  }
  return ZY_MPI_OP_OTHER;
}

/* The integer bits of constant pointer `p` (inttoptr), or 0. */
static long long pointer_bits(LLVMValueRef p) {
  if (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMIntToPtr &&
      LLVMIsAConstantInt(LLVMGetOperand(p, 0)))
    return LLVMConstIntGetSExtValue(LLVMGetOperand(p, 0));
  return 0;
}

int zy_mpi_in_place(const ZyMpiCall *c, LLVMValueRef p) {
  return p && pointer_bits(p) == (c->mpich ? -1 : 1);
}

int zy_mpi_type_ignored(ZyMpiCall *c, int nth) {
  return zy_mpi_index(c->row, 't', 1) >= 0 &&
         zy_mpi_in_place(c, zy_mpi_buffer(c, nth));
}

LLVMValueRef zy_mpi_in_place_value(const ZyMpiCall *c) {
  return LLVMConstIntToPtr(
      LLVMConstInt(c->i64, (unsigned long long)(c->mpich ? -1 : 1), 1), c->ptr);
}

/* Whether `p` may be MPI_IN_PLACE chosen at run time (a select or phi
 * with the constant among its operands). */
static int in_place_at_run_time(const ZyMpiCall *c, LLVMValueRef p) {
  if (!LLVMIsASelectInst(p) && !LLVMIsAPHINode(p))
    return 0;
  for (int k = 0; k < LLVMGetNumOperands(p); k++)
    if (zy_mpi_in_place(c, LLVMGetOperand(p, k)))
      return 1;
  return 0;
}

LLVMValueRef zy_mpi_emit(ZyMpiCall *c, const char *name, const char *sig,
                         LLVMValueRef *args) {
  char full[64];
  snprintf(full, sizeof full, "%s%s", c->pmpi ? "PMPI_" : "MPI_", name);
  LLVMTypeRef params[16];
  unsigned n = (unsigned)strlen(sig);
  for (unsigned k = 0; k < n; k++)
    params[k] = sig[k] == 'p' ? c->ptr : sig[k] == 'i' ? c->i32 : c->h;
  LLVMValueRef fn = LLVMGetNamedFunction(c->mod, full);
  if (!fn)
    fn = LLVMAddFunction(c->mod, full, LLVMFunctionType(c->i32, params, n, 0));
  return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

LLVMValueRef zy_mpi_handle(ZyMpiCall *c, const char *ompi, unsigned mpich) {
  if (c->mpich)
    return LLVMConstInt(c->i32, mpich, 0);
  LLVMValueRef gv = LLVMGetNamedGlobal(c->mod, ompi);
  if (!gv)
    gv = LLVMAddGlobal(c->mod, c->i8, ompi); /* external: the library's */
  return gv;
}

LLVMValueRef zy_mpi_status_ignore(ZyMpiCall *c) {
  return c->mpich ? LLVMConstIntToPtr(LLVMConstInt(c->i64, 1, 0), c->ptr)
                  : LLVMConstNull(c->ptr);
}

unsigned zy_mpi_status_source(const ZyMpiCall *c) { return c->mpich ? 8 : 0; }
unsigned zy_mpi_status_tag(const ZyMpiCall *c) { return c->mpich ? 12 : 4; }

LLVMValueRef zy_mpi_any_source(const ZyMpiCall *c) {
  return LLVMConstInt(c->i32, (unsigned long long)(c->mpich ? -2 : -1), 1);
}
LLVMValueRef zy_mpi_any_tag(const ZyMpiCall *c) {
  return LLVMConstInt(c->i32, (unsigned long long)-1, 1);
}
LLVMValueRef zy_mpi_proc_null(const ZyMpiCall *c) {
  return LLVMConstInt(c->i32, (unsigned long long)(c->mpich ? -1 : -2), 1);
}

void zy_mpi_actual_source(ZyMpiCall *c, LLVMValueRef st, LLVMValueRef *src,
                          LLVMValueRef *tag) {
  LLVMValueRef off[2] = {LLVMConstInt(c->i64, zy_mpi_status_source(c), 0),
                         LLVMConstInt(c->i64, zy_mpi_status_tag(c), 0)};
  LLVMValueRef s = LLVMBuildLoad2(
      c->b, c->i32, LLVMBuildGEP2(c->b, c->i8, st, &off[0], 1, ""), "");
  LLVMValueRef t = LLVMBuildLoad2(
      c->b, c->i32, LLVMBuildGEP2(c->b, c->i8, st, &off[1], 1, ""), "");
  *src = LLVMBuildSelect(
      c->b, LLVMBuildICmp(c->b, LLVMIntEQ, *src, zy_mpi_any_source(c), ""), s,
      *src, "mpi.src");
  t = LLVMBuildSelect(
      c->b, LLVMBuildICmp(c->b, LLVMIntEQ, *tag, zy_mpi_any_tag(c), ""), t,
      *tag, "");
  LLVMValueRef zero = LLVMConstInt(c->i32, 0, 0);
  *tag = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, t, zero, ""),
                         zero, t, "mpi.tag");
}

static LLVMValueRef comm_query(ZyMpiCall *c, const char *name,
                               LLVMValueRef comm) {
  LLVMValueRef slot = zy_new_slot(c->g, c->i32, "mpi.rank", 0);
  LLVMValueRef args[2] = {comm, slot};
  zy_mpi_emit(c, name, "hp", args);
  return LLVMBuildLoad2(c->b, c->i32, slot, name);
}

LLVMValueRef zy_mpi_rank(ZyMpiCall *c, LLVMValueRef comm) {
  return comm_query(c, "Comm_rank", comm);
}

LLVMValueRef zy_mpi_size(ZyMpiCall *c, LLVMValueRef comm) {
  return comm_query(c, "Comm_size", comm);
}

/* --- Check step --------------------------------------------------------- */

static const char *callee_name(LLVMValueRef call) {
  return LLVMGetValueName(LLVMGetCalledValue(call));
}

/* Buffers with MPI_IN_PLACE: where the adjoint builders support it. */
static int check_in_place(ZyMpiCall *c) {
  ZyGen *g = c->g;
  for (int nth = 0;; nth++) {
    LLVMValueRef p = zy_mpi_buffer(c, nth);
    if (!p)
      return 0;
    if (in_place_at_run_time(c, p))
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "call the function in two places, one with "
                          "MPI_IN_PLACE and one with the buffer",
                          "'%s' receives MPI_IN_PLACE or a buffer, chosen "
                          "at run time; Zymase needs to know which when "
                          "it compiles the call",
                          callee_name(c->call));
    ZyMpiKind k = c->row->kind;
    int ok = (nth == 0 && (k == ZY_MPI_REDUCE || k == ZY_MPI_ALLREDUCE ||
                           k == ZY_MPI_IREDUCE || k == ZY_MPI_IALLREDUCE ||
                           k == ZY_MPI_SCAN || k == ZY_MPI_EXSCAN ||
                           k == ZY_MPI_GATHER || k == ZY_MPI_ALLGATHER)) ||
             (nth == 1 && k == ZY_MPI_SCATTER);
    if (zy_mpi_in_place(c, p) && !ok)
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "use separate send and receive buffers",
                          "MPI_IN_PLACE in '%s' is not differentiated yet",
                          callee_name(c->call));
  }
}

/* Datatypes: predefined and constant; integer types only on integer
 * data. */
static int check_types(ZyMpiCall *c) {
  ZyGen *g = c->g;
  for (int nth = 0;; nth++) {
    int k = zy_mpi_index(c->row, 't', nth);
    if (k < 0)
      return 0;
    LLVMValueRef buf = zy_mpi_buffer(c, nth);
    if (zy_mpi_type_ignored(c, nth))
      continue;
    ZyMpiElem el = zy_mpi_elem(LLVMGetOperand(c->call, (unsigned)k));
    if (el == ZY_MPI_EL_UNKNOWN)
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "pass MPI_DOUBLE or MPI_FLOAT (or an integer "
                          "type) directly in the call",
                          "the datatype of '%s' (argument %d) is not a "
                          "predefined MPI datatype known when compiling; "
                          "derived and run-time datatypes are "
                          "differentiated only as contiguous datatypes "
                          "on buffers of doubles or floats",
                          callee_name(c->call), k + 1);
    if (el != ZY_MPI_EL_NONE || !buf || !zy_activity_shadowed(g->act, buf))
      continue;
    ZyTy held = zy_types_memory(g->types, buf, 0);
    if (zy_ty_is_float(held))
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "send floating-point data as MPI_DOUBLE or "
                          "MPI_FLOAT",
                          "'%s' moves floating-point data (argument %d) "
                          "with an integer or byte datatype; its "
                          "derivatives would be lost",
                          callee_name(c->call), k + 1);
  }
}

/* Whether an MPI call of g's primal moves floating-point data (its
 * reverse communicates). */
static int communicates_floats(ZyGen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      const ZyMpiRow *r =
          LLVMIsACallInst(i) ? zy_mpi_row(LLVMGetCalledValue(i)) : NULL;
      if (!r || r->kind == ZY_MPI_INACTIVE || r->kind == ZY_MPI_REFUSED)
        continue;
      ZyMpiCall c;
      zy_mpi_init(&c, g, i);
      for (int k = 0; zy_mpi_arg(&c, 't', k); k++)
        if (!zy_mpi_type_ignored(&c, k) &&
            zy_mpi_elem(zy_mpi_arg(&c, 't', k)) != ZY_MPI_EL_NONE)
          return 1;
    }
  return 0;
}

static int check_call(ZyGen *g, LLVMValueRef call, const ZyMpiRow *r) {
  ZyMpiCall c;
  g->cur = call;
  const char *name = callee_name(call);
  const char *bare = name + (name[0] == 'P' ? 5 : 4);
  if (!strcmp(bare, "Comm_free") && communicates_floats(g))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "free the communicator after the gradient returns, "
                        "outside the differentiated function",
                        "'%s' in a function whose reverse pass communicates: "
                        "the reverse pass would use the freed communicator",
                        name);
  if (r->kind == ZY_MPI_REFUSED && (!strncmp(bare, "Intercomm_", 10) ||
                                    !strcmp(bare, "Comm_create_intercomm")))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "make the intercommunicator outside the "
                        "differentiated code, and communicate data with "
                        "derivatives on intracommunicators",
                        "the MPI call '%s' is not differentiated: "
                        "intercommunicators are refused",
                        name);
  if (r->kind == ZY_MPI_REFUSED)
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "move the call out of the differentiated code; the "
                        "README lists the MPI calls Zymase differentiates",
                        "the MPI call '%s' is not differentiated",
                        callee_name(call));
  if (r->kind == ZY_MPI_INACTIVE)
    return 0;
  if (zy_parallel_context(g))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "call MPI outside the OpenMP parallel region",
                        "MPI calls inside an OpenMP parallel region are not "
                        "differentiated yet (a call to '%s')",
                        callee_name(call));
  zy_mpi_init(&c, g, call);
  if (check_types(&c) || check_in_place(&c))
    return -1;
  LLVMValueRef op = zy_mpi_arg(&c, 'o', 0);
  int reduce = r->kind == ZY_MPI_REDUCE || r->kind == ZY_MPI_ALLREDUCE;
  if (op && !reduce && zy_mpi_op(op) != ZY_MPI_SUM)
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "use MPI_SUM, given directly in the call",
                        "the reduction op of '%s' is not differentiated: "
                        "only MPI_SUM is supported there",
                        callee_name(call));
  int pairs = 0;
  for (int k = 0; zy_mpi_arg(&c, 't', k); k++) {
    ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(&c, 't', k));
    pairs |= el == ZY_MPI_EL_DOUBLE_INT || el == ZY_MPI_EL_FLOAT_INT;
  }
  int loc =
      op && (zy_mpi_op(op) == ZY_MPI_MINLOC || zy_mpi_op(op) == ZY_MPI_MAXLOC);
  if (pairs != loc)
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "reduce MPI_DOUBLE_INT or MPI_FLOAT_INT pairs with "
                        "MPI_MINLOC or MPI_MAXLOC",
                        "'%s': value-index pairs are differentiated in "
                        "MPI_MINLOC/MPI_MAXLOC reductions only, and those "
                        "only on pairs",
                        callee_name(call));
  if (op && zy_mpi_op(op) == ZY_MPI_OP_OTHER)
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "use MPI_SUM, MPI_PROD, MPI_MAX or MPI_MIN, given "
                        "directly in the call",
                        "the reduction op of '%s' is not differentiated: "
                        "only MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, "
                        "MPI_MINLOC and MPI_MAXLOC are supported "
                        "(user-defined and run-time ops are refused)",
                        callee_name(call));
  return 0;
}

int zy_mpi_check_call(ZyGen *g, LLVMValueRef call) {
  const ZyMpiRow *r = zy_mpi_row(LLVMGetCalledValue(call));
  return r ? check_call(g, call, r) : 0;
}

int zy_mpi_check(ZyGen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
        continue;
      const ZyMpiRow *r = zy_mpi_row(LLVMGetCalledValue(i));
      if (r && check_call(g, i, r))
        return -1;
    }
  return 0;
}

/* The engine's handlers of MPI calls (ad/runtime.h). */
static const ZyCallRuntime mpi_runtime = {.name = "MPI",
                                          .prepare = zy_mpi_retype,
                                          .check = zy_mpi_check,
                                          .forward = zy_mpi_forward,
                                          .reverse = zy_mpi_reverse,
                                          .tangent = zy_mpi_tangent};

void zy_mpi_register(void) { zy_runtime_register(ZY_CALL_MPI, &mpi_runtime); }
