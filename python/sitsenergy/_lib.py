"""The C library, opened with cffi in ABI mode.

Why cffi's ABI mode: the package needs no compiler and no build step (pip installs pure
Python), yet the declarations below are C declarations that cffi checks and converts
(strings, sizes, NULL), which ctypes would leave to hand-written argtypes. Only functions
and the two structures read field by field (sits_err, sits_event) are declared; everything
else crosses as opaque pointers, JSON text or contiguous double blocks.

Where the library is: $SITSENERGY_LIB (the libsits.so file), else $SITSENERGY_PREFIX
(an install prefix: <prefix>/lib*/libsits.so), else `pkg-config --variable=libdir
sitsenergy`, else the dynamic linker's search path.
"""

import ctypes.util
import glob
import os
import shutil
import subprocess

from cffi import FFI

CDEF = """
typedef struct sits_err { int code; char msg[8192]; } sits_err;
typedef struct sits_scenario sits_scenario;
typedef struct sits_result sits_result;
typedef struct sits_event {
  double time_s;
  char kind[32];
  char detail[128];
  char subject[48];
  char unit[8];
  double value, from, limit, soc;
} sits_event;
typedef int (*sits_sample_sink)(const sits_result *r, size_t first, size_t count, void *user,
                                sits_err *err);
const char *sits_version(void);
int sits_scenario_load(const char *path, const char *const *sets, size_t n_sets,
                       sits_scenario **out, sits_err *err);
int sits_scenario_load_text(const char *text, const char *name, const char *const *sets,
                            size_t n_sets, sits_scenario **out, sits_err *err);
void sits_scenario_free(sits_scenario *sc);
const char *sits_scenario_config_text(const sits_scenario *sc);
unsigned long long sits_scenario_config_hash(const sits_scenario *sc);
size_t sits_scenario_domain_count(const sits_scenario *sc);
size_t sits_scenario_fan_count(const sits_scenario *sc);
const char *sits_scenario_fan_name(const sits_scenario *sc, size_t k);
const char *sits_scenario_domain_name(const sits_scenario *sc, size_t d);
size_t sits_scenario_node_count(const sits_scenario *sc);
const char *sits_scenario_node_name(const sits_scenario *sc, size_t i);
const void *sits_scenario_battery(const sits_scenario *sc);
int sits_scenario_set_origin(sits_scenario *sc, const char *text);
size_t sits_scenario_input_count(const sits_scenario *sc);
const char *sits_scenario_input(const sits_scenario *sc, size_t k);
typedef void (*sits_progress_fn)(double t_s, double end_s, void *user);
typedef struct sits_run_opts {
  sits_progress_fn progress;
  void *progress_user;
  sits_sample_sink sink;
  void *sink_user;
  _Bool keep_samples;
  int (*stop)(void *user);
  void *stop_user;
} sits_run_opts;
int sits_run(const sits_scenario *sc, const sits_run_opts *opts, sits_result **out,
             sits_err *err);
void sits_result_free(sits_result *r);
int sits_run_bands(const sits_scenario *sc, const sits_run_opts *opts, sits_result *r,
                   sits_err *err);
size_t sits_result_sample_count(const sits_result *r);
const double *sits_result_series(const sits_result *r, const char *what, size_t *cols);
size_t sits_result_event_count(const sits_result *r);
const sits_event *sits_result_event(const sits_result *r, size_t k);
char *sits_summary_json_text(const sits_scenario *sc, const sits_result *r);
char *sits_steady_json_text(const sits_scenario *sc, sits_err *err);
char *sits_dvfs_table_json_text(const sits_scenario *sc, const char *domain, sits_err *err);
char *sits_scenario_bpx_text(const sits_scenario *sc, const char *title, sits_err *err);
int sits_write_h5(const sits_scenario *sc, const sits_result *r, const char *path, sits_err *err);
int sits_write_csv(const sits_scenario *sc, const sits_result *r, const char *path, sits_err *err);
void sits_free(void *p);
typedef struct sits_sweep sits_sweep;
sits_sweep *sits_sweep_new(const char *scenario_path, const char *const *sets, size_t n_sets,
                           sits_err *err);
void sits_sweep_free(sits_sweep *s);
int sits_sweep_vary(sits_sweep *s, const char *spec, sits_err *err);
int sits_sweep_dist(sits_sweep *s, const char *spec, sits_err *err);
int sits_sweep_sample(sits_sweep *s, size_t n, const char *method, unsigned long seed,
                      sits_err *err);
size_t sits_sweep_count(const sits_sweep *s);
int sits_sweep_write_header(const sits_sweep *s, FILE *f);
int sits_sweep_run_row(sits_sweep *s, size_t idx, FILE *f, _Bool *violated);
FILE *fopen(const char *path, const char *mode);
int fclose(FILE *f);
"""

ffi = FFI()
ffi.cdef(CDEF)


class LibraryNotFound(ImportError):
    """libsits could not be located (see the module's docstring for where it is looked for)."""


def _candidates():
    env = os.environ.get("SITSENERGY_LIB")
    if env:
        yield env
        return
    prefix = os.environ.get("SITSENERGY_PREFIX")
    if prefix:
        yield from sorted(glob.glob(os.path.join(prefix, "lib*", "libsits.so*")))
        yield from sorted(glob.glob(os.path.join(prefix, "lib", "*", "libsits.so*")))
    if shutil.which("pkg-config"):
        try:
            libdir = subprocess.run(["pkg-config", "--variable=libdir", "sitsenergy"],
                                    capture_output=True, text=True, check=True).stdout.strip()
            if libdir:
                yield from sorted(glob.glob(os.path.join(libdir, "libsits.so*")))
        except subprocess.CalledProcessError:
            pass
    found = ctypes.util.find_library("sits")
    if found:
        yield found


def _open():
    tried = []
    for path in _candidates():
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise LibraryNotFound(
        "libsits not found: set SITSENERGY_LIB to the libsits.so file or SITSENERGY_PREFIX to "
        "its install prefix" + ("; tried " + "; ".join(tried) if tried else ""))


def _gsl_quiet():
    """GSL's default error handler aborts the process; the library reports through its status,
    so in an interpreter the handler is switched off (the library's own GSL instance)."""
    name = ctypes.util.find_library("gsl")
    if not name:
        return
    gffi = FFI()
    gffi.cdef("typedef void gsl_error_handler_t (const char *, const char *, int, int);"
              "gsl_error_handler_t *gsl_set_error_handler_off(void);")
    try:
        gsl = gffi.dlopen(name)
    except OSError:
        return
    gsl.gsl_set_error_handler_off()
    _keep.append((gffi, gsl))


_keep: list = []  # the GSL handles, alive as long as the module
lib, path = _open()
libc = ffi.dlopen(None)  # fopen/fclose for the writers that take a FILE
_gsl_quiet()
