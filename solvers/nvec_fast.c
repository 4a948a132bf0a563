/*
 * nvec_fast.c - compiled replacements for the hot operations of SUNDIALS' serial N_Vector.
 *
 * Debian 12's libsundials_nvecserial 6.4.1 is built without optimisation (its
 * N_VWSqrSumLocal_Serial keeps every operand on the stack: `gdb -batch -ex "disassemble
 * N_VWSqrSumLocal_Serial"`), and the integrators spend much of a large network's time in
 * these loops: on the 16,396-state HotSpot grid a weighted RMS norm took 121 us, a linear sum
 * 28 us, against ~11 us for the same loop compiled with -O2. SUNDIALS lets a program supply
 * its own vector operations (the N_Vector ops table); these are the serial layout's
 * operations with the same definitions (SUNDIALS user guide, "Description of the NVECTOR
 * operations"), installed on the template vector before an integrator clones it.
 * tests/solvers/test_nvec.c compares each with the library's own.
 */
#include "nvec_impl.h"

#include <math.h>

#include <nvector/nvector_serial.h>

#define LEN(v) ((size_t)NV_LENGTH_S(v))
#define DAT(v) NV_DATA_S(v)

static void linear_sum(realtype a, N_Vector x, realtype b, N_Vector y, N_Vector z) {
  const realtype *xd = DAT(x), *yd = DAT(y);
  realtype *zd = DAT(z);
  for (size_t i = 0, n = LEN(x); i < n; i++)
    zd[i] = a * xd[i] + b * yd[i];
}

static void set_const(realtype c, N_Vector z) {
  realtype *zd = DAT(z);
  for (size_t i = 0, n = LEN(z); i < n; i++)
    zd[i] = c;
}

static void prod(N_Vector x, N_Vector y, N_Vector z) {
  const realtype *xd = DAT(x), *yd = DAT(y);
  realtype *zd = DAT(z);
  for (size_t i = 0, n = LEN(x); i < n; i++)
    zd[i] = xd[i] * yd[i];
}

static void divide(N_Vector x, N_Vector y, N_Vector z) {
  const realtype *xd = DAT(x), *yd = DAT(y);
  realtype *zd = DAT(z);
  for (size_t i = 0, n = LEN(x); i < n; i++)
    zd[i] = xd[i] / yd[i];
}

static void scale(realtype c, N_Vector x, N_Vector z) {
  const realtype *xd = DAT(x);
  realtype *zd = DAT(z);
  for (size_t i = 0, n = LEN(x); i < n; i++)
    zd[i] = c * xd[i];
}

static void absolute(N_Vector x, N_Vector z) {
  const realtype *xd = DAT(x);
  realtype *zd = DAT(z);
  for (size_t i = 0, n = LEN(x); i < n; i++)
    zd[i] = fabs(xd[i]);
}

static void inverse(N_Vector x, N_Vector z) {
  const realtype *xd = DAT(x);
  realtype *zd = DAT(z);
  for (size_t i = 0, n = LEN(x); i < n; i++)
    zd[i] = 1.0 / xd[i];
}

static void add_const(N_Vector x, realtype b, N_Vector z) {
  const realtype *xd = DAT(x);
  realtype *zd = DAT(z);
  for (size_t i = 0, n = LEN(x); i < n; i++)
    zd[i] = xd[i] + b;
}

static realtype dot(N_Vector x, N_Vector y) {
  const realtype *xd = DAT(x), *yd = DAT(y);
  realtype s = 0;
  for (size_t i = 0, n = LEN(x); i < n; i++)
    s += xd[i] * yd[i];
  return s;
}

static realtype max_norm(N_Vector x) {
  const realtype *xd = DAT(x);
  realtype m = 0;
  for (size_t i = 0, n = LEN(x); i < n; i++)
    m = fabs(xd[i]) > m ? fabs(xd[i]) : m;
  return m;
}

static realtype wsqr_sum(N_Vector x, N_Vector w) {
  const realtype *xd = DAT(x), *wd = DAT(w);
  realtype s = 0;
  for (size_t i = 0, n = LEN(x); i < n; i++) {
    realtype p = xd[i] * wd[i];
    s += p * p;
  }
  return s;
}

static realtype wrms_norm(N_Vector x, N_Vector w) {
  return sqrt(wsqr_sum(x, w) / (realtype)LEN(x));
}

static int linear_combination(int nv, realtype *c, N_Vector *x, N_Vector z) {
  realtype *zd = DAT(z);
  size_t n = LEN(z);
  if (nv < 1)
    return -1;
  /* z may be x[0]: scale it first, then add the others */
  const realtype *x0 = DAT(x[0]);
  for (size_t i = 0; i < n; i++)
    zd[i] = c[0] * x0[i];
  for (int k = 1; k < nv; k++) {
    const realtype *xk = DAT(x[k]);
    realtype ck = c[k];
    for (size_t i = 0; i < n; i++)
      zd[i] += ck * xk[i];
  }
  return 0;
}

static int scale_add_multi(int nv, realtype *a, N_Vector x, N_Vector *y, N_Vector *z) {
  const realtype *xd = DAT(x);
  size_t n = LEN(x);
  if (nv < 1)
    return -1;
  for (int k = 0; k < nv; k++) {
    const realtype *yk = DAT(y[k]);
    realtype *zk = DAT(z[k]), ak = a[k];
    for (size_t i = 0; i < n; i++)
      zk[i] = ak * xd[i] + yk[i];
  }
  return 0;
}

void sits__nvec_fast(N_Vector v) {
  N_Vector_Ops o = v->ops;
  o->nvlinearsum = linear_sum;
  o->nvconst = set_const;
  o->nvprod = prod;
  o->nvdiv = divide;
  o->nvscale = scale;
  o->nvabs = absolute;
  o->nvinv = inverse;
  o->nvaddconst = add_const;
  o->nvdotprod = dot;
  o->nvdotprodlocal = dot;
  o->nvmaxnorm = max_norm;
  o->nvmaxnormlocal = max_norm;
  o->nvwrmsnorm = wrms_norm;
  o->nvwsqrsumlocal = wsqr_sum;
  o->nvlinearcombination = linear_combination;
  o->nvscaleaddmulti = scale_add_multi;
}
