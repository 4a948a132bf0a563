/*
 * test_nvec.c - the compiled serial N_Vector operations (nvec_fast.c) against SUNDIALS' own
 * on the same data, including the aliased forms the integrators use (z the same as x): equal
 * to the last bit for element-wise operations, to 1e-14 relative for the reductions (their
 * summation order may differ).
 */
#include "test_util.h"

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>

#include "nvec_impl.h"

#define N 1003

typedef struct pair {
  SUNContext ctx;
  N_Vector lib[4], fast[4]; /* x, y, z, w: the same values in both sets */
} pair;

static void setup_pair(pair *p) {
  cr_assert_eq(SUNContext_Create(NULL, &p->ctx), 0);
  N_Vector proto_lib = N_VNew_Serial(N, p->ctx), proto_fast = N_VNew_Serial(N, p->ctx);
  sits__nvec_fast(proto_fast);
  for (int k = 0; k < 4; k++) {
    p->lib[k] = N_VClone(proto_lib), p->fast[k] = N_VClone(proto_fast);
    double *a = N_VGetArrayPointer(p->lib[k]), *b = N_VGetArrayPointer(p->fast[k]);
    for (int i = 0; i < N; i++)
      a[i] = b[i] = (k + 1) * sin(0.37 * i + k) + (k == 3 ? 2.5 : 0.0); /* w > 0 */
  }
  N_VDestroy(proto_lib), N_VDestroy(proto_fast);
}

static void teardown_pair(pair *p) {
  for (int k = 0; k < 4; k++)
    N_VDestroy(p->lib[k]), N_VDestroy(p->fast[k]);
  SUNContext_Free(&p->ctx);
}

static void same(const pair *p, int k, const char *what) {
  const double *a = N_VGetArrayPointer(p->lib[k]), *b = N_VGetArrayPointer(p->fast[k]);
  for (int i = 0; i < N; i++)
    cr_assert_eq(a[i], b[i], "%s: element %d: %.17g vs %.17g", what, i, a[i], b[i]);
}

static void close_rel(double a, double b, const char *what) {
  cr_assert_leq(fabs(a - b), 1e-14 * fmax(fabs(a), 1e-300), "%s: %.17g vs %.17g", what, a, b);
}

Test(nvec, elementwise_operations_equal_sundials) {
  pair p;
  setup_pair(&p);
  N_Vector *l = p.lib, *f = p.fast;
  N_VLinearSum(0.3, l[0], -1.7, l[1], l[2]), N_VLinearSum(0.3, f[0], -1.7, f[1], f[2]);
  same(&p, 2, "linear sum");
  N_VLinearSum(2.0, l[2], 1.0, l[0], l[2]), N_VLinearSum(2.0, f[2], 1.0, f[0], f[2]);
  same(&p, 2, "linear sum in place");
  N_VScale(-0.25, l[1], l[2]), N_VScale(-0.25, f[1], f[2]);
  same(&p, 2, "scale");
  N_VProd(l[0], l[1], l[2]), N_VProd(f[0], f[1], f[2]);
  same(&p, 2, "prod");
  N_VDiv(l[0], l[3], l[2]), N_VDiv(f[0], f[3], f[2]);
  same(&p, 2, "div");
  N_VAbs(l[1], l[2]), N_VAbs(f[1], f[2]);
  same(&p, 2, "abs");
  N_VInv(l[3], l[2]), N_VInv(f[3], f[2]);
  same(&p, 2, "inv");
  N_VAddConst(l[0], 4.5, l[2]), N_VAddConst(f[0], 4.5, f[2]);
  same(&p, 2, "add const");
  N_VConst(-3.25, l[2]), N_VConst(-3.25, f[2]);
  same(&p, 2, "const");
  teardown_pair(&p);
}

Test(nvec, reductions_equal_sundials) {
  pair p;
  setup_pair(&p);
  N_Vector *l = p.lib, *f = p.fast;
  close_rel(N_VDotProd(l[0], l[1]), N_VDotProd(f[0], f[1]), "dot");
  close_rel(N_VMaxNorm(l[1]), N_VMaxNorm(f[1]), "max norm");
  close_rel(N_VWrmsNorm(l[0], l[3]), N_VWrmsNorm(f[0], f[3]), "wrms norm");
  /* the hand value: |x| = 1 everywhere with w = 2 gives a WRMS norm of 2 */
  N_VConst(-1.0, f[0]), N_VConst(2.0, f[3]);
  cr_assert_float_eq(N_VWrmsNorm(f[0], f[3]), 2.0, 1e-15);
  teardown_pair(&p);
}

Test(nvec, fused_operations_equal_their_definitions) {
  pair p;
  setup_pair(&p);
  N_Vector *l = p.lib, *f = p.fast;
  realtype c[3] = {0.5, -2.0, 1.25};
  /* z = sum c_k x_k, with z the first operand (as ARKODE calls it) */
  N_Vector xf[3] = {f[2], f[0], f[1]};
  cr_assert_eq(N_VLinearCombination(3, c, xf, f[2]), 0);
  N_VLinearSum(c[0], l[2], c[1], l[0], l[2]); /* the definition, step by step */
  N_VLinearSum(1.0, l[2], c[2], l[1], l[2]);
  same(&p, 2, "linear combination");
  /* Z_k = a_k x + Y_k, Z the same as Y */
  N_Vector yf[2] = {f[1], f[2]};
  cr_assert_eq(N_VScaleAddMulti(2, c, f[0], yf, yf), 0);
  N_VLinearSum(c[0], l[0], 1.0, l[1], l[1]);
  N_VLinearSum(c[1], l[0], 1.0, l[2], l[2]);
  same(&p, 1, "scale add multi 0");
  same(&p, 2, "scale add multi 1");
  teardown_pair(&p);
}
