/*
 * init.c - what libsits sets up once, when it is loaded.
 *
 * GSL's default error handler prints and calls abort(): any GSL routine reached from any
 * entry point (a scenario load, the hotspot path, a fit, a host program calling the
 * library directly) could end the host process. The library checks every GSL status
 * itself, so the handler is switched off once, as the library is loaded, instead of at
 * each entry point. GSL keeps the handler in its own process-wide state; a host that
 * installs its own handler after loading libsits keeps it.
 */
#include <gsl/gsl_errno.h>

__attribute__((constructor)) static void sits_library_init(void) {
  gsl_set_error_handler_off();
}
