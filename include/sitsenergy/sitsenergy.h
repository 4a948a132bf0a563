/*
 * sitsenergy.h - the whole public API of libsits in one include:
 * `#include <sitsenergy/sitsenergy.h>` with the flags of `pkg-config --cflags sitsenergy`.
 * (The board hook library libsits_rt has its own header, sits_rt.h.)
 */
#ifndef SITSENERGY_H
#define SITSENERGY_H

#include "sits_export.h"
#include "sits_status.h"
#include "sits_output.h"
#include "sits_version.h"
#include "sits_battery.h"
#include "sits_floorplan.h"
#include "sits_governor.h"
#include "sits_power.h"
#include "sits_schedule.h"
#include "sits_thermal.h"
#include "sits_replay.h"
#include "sits_text.h"
#include "sits_table_writer.h"
#include "sits_bpx.h"
#include "sits_thermal_cal.h"
#include "sits_trace.h"
#include "sits_config.h"
#include "sits_metrics.h"
#include "sits_battery_fit.h"
#include "sits_calibrate.h"
#include "sits_dvfs.h"
#include "sits_board.h"
#include "sits_hotspot.h"
#include "sits_scenario.h"
#include "sits_sim.h"
#include "sits_writers.h"
#include "sits_sweep.h"
#include "sits_table.h"
#include "sits_chol.h"
#include "sits_expint.h"
#include "sits_fit.h"
#include "sits_layergrid.h"
#include "sits_lti.h"
#include "sits_netsteady.h"
#include "sits_newton.h"
#include "sits_ode.h"
#include "sits_steady.h"

#endif
