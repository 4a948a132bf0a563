"""Battery Parameter eXchange (BPX) JSON for the product's equivalent-circuit cell.

BPX (https://bpxstandard.com, the Faraday Institution's format that PyBaMM and PyBOP read)
has fixed sections for physics-based models only (SPM, SPMe, DFN: electrodes, electrolyte,
separator). An equivalent circuit goes where BPX keeps parameters outside those models:
Header.Model "Partial" and Parameterisation."User-defined", with PyBaMM's names for its
Thevenin model where it has them:

  "Nominal cell capacity [A.h]"                     capacity_ah (also PyBaMM's "Cell
                                                    capacity [A.h]", or BPX's Cell section)
  "Cell capacity by temperature [A.h]"              {"x": T in K, "y": Ah} -> capacity_t_c,
                                                    capacity_scale (over capacity_ah)
  "Open-circuit voltage [V]" {"x": SOC, "y": V}     ocv_soc, ocv_v
  "Open-circuit voltage by temperature [V]"         {"<T in K>": {"x", "y"}} -> ocv_t_c, rows
  "R0 [Ohm]", "R1 [Ohm]", "C1 [F]", ...             r0_ohm, rc = ({ r_ohm; c_f; }, ...)
  "R0 by SOC [Ohm]", "R1 by SOC [Ohm]", "C1 by SOC [F]" {"x": SOC, "y": value}
                                                    r_soc, r0_scale, rc r_scale / c_scale
                                                    (the values over the reference ones)
  "R0 by temperature and SOC [Ohm]", ...            {"<T in K>": {"x", "y"}} -> r_t_c, rows
  "Hysteresis magnitude [V]", "Hysteresis decay     hysteresis = { m_v; gamma; initial;
  rate", "Initial hysteresis state",                m0_v; } (Plett's ESC model)
  "Instantaneous hysteresis [V]"
  "Resistance activation energy [J.mol-1]",
  "Reference temperature [K]"                       r_ea_j_per_mol, r_ref_c
  "Lower voltage cut-off [V]"                       cutoff_v
  "Coulombic efficiency"                            coulombic_efficiency

export: `Scenario.bpx()` / `write(scenario, path)` (the C library writes it, as
`calibrate --fit battery --bpx` does). import: `read(path)` -> dict of the cell's values,
`to_config(path)` -> the text of a configs/batteries file (a `battery = { ... };` group) that
a platform takes as `battery = "<file>"`. A physics-based BPX set (SPM/SPMe/DFN sections and
no equivalent circuit) is refused with BPXPhysicsBased: it describes electrodes, not a
circuit, and this product does not solve those models.
"""

import json
import math
import re

__all__ = ["read", "to_config", "write", "BPXError", "BPXPhysicsBased"]


class BPXError(ValueError):
    """The file is not BPX, or its equivalent-circuit part is incomplete or inconsistent."""


class BPXPhysicsBased(BPXError):
    """A physics-based (SPM, SPMe, DFN) parameter set: not an equivalent circuit."""


_PHYSICS_SECTIONS = ("Negative electrode", "Positive electrode", "Electrolyte", "Separator")


def _table(v, what, min_points=3, positive=False, x_range=(0.0, 1.0), x_name="SOC"):
    # the OCV needs 3 or more points (GSL Steffen); a resistance table 2 (linear between 2)
    if not (isinstance(v, dict) and isinstance(v.get("x"), list) and isinstance(v.get("y"), list)
            and len(v["x"]) == len(v["y"]) and len(v["x"]) >= min_points):
        raise BPXError(f"'{what}' must be a table {{\"x\": [...], \"y\": [...]}} of "
                       f"{min_points} or more points")
    try:
        x, y = [float(a) for a in v["x"]], [float(a) for a in v["y"]]
    except (TypeError, ValueError):
        raise BPXError(f"'{what}': x and y must be numbers") from None
    if any(b <= a for a, b in zip(x, x[1:])) or x[0] < x_range[0] or x[-1] > x_range[1]:
        raise BPXError(f"'{what}': x ({x_name}) must increase within [{x_range[0]:g}, "
                       f"{x_range[1]:g}]")
    if positive and not all(math.isfinite(a) and a > 0 for a in y):
        raise BPXError(f"'{what}': the values must be positive numbers")
    return x, y


def _scaled(ud, name, unit, ref, cell):
    """The factors (rows of them) of the table under `name` over its reference value `ref`,
    or None when the file has none; its SOC points (and temperatures) go into cell's r_soc
    (r_t_c), which every table must share."""
    one, by_t = f"{name} by SOC {unit}", f"{name} by temperature and SOC {unit}"
    if one in ud and by_t in ud:
        raise BPXError(f"'{one}' and '{by_t}': give one of them")
    if one in ud:
        temps, rows = None, [_table(ud[one], one, 2, True)]
    elif by_t in ud:
        v = ud[by_t]
        if not isinstance(v, dict) or not v:
            raise BPXError(f"'{by_t}' must map temperatures in K to tables")
        try:
            items = sorted((float(k), k) for k in v)
        except ValueError:
            raise BPXError(f"'{by_t}': keys must be temperatures in K") from None
        temps = [round(t - 273.15, 10) for t, _ in items]
        rows = [_table(v[k], f"{by_t} at {k} K", 2, True) for _, k in items]
    else:
        return None
    soc = rows[0][0]
    if any(r[0] != soc for r in rows) or cell.setdefault("r_soc", soc) != soc:
        raise BPXError(f"'{one if temps is None else by_t}': the resistance tables must share "
                       "their SOC points")
    if cell.setdefault("r_t_c", temps) != temps:
        raise BPXError(f"'{one if temps is None else by_t}': the resistance tables must all be "
                       "by SOC or all by the same temperatures")
    f = [[float(f"{a / ref:.12g}") for a in r[1]] for r in rows]
    return f if temps is not None else f[0]


def _number(ud, key, required=True, positive=True):
    if key not in ud:
        if required:
            raise BPXError(f"missing '{key}' in Parameterisation.User-defined")
        return None
    v = ud[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or (
            positive and v <= 0):
        raise BPXError(f"'{key}' must be a {'positive ' if positive else ''}number, not {v!r}")
    return float(v)


def read(source):
    """The equivalent-circuit cell of a BPX file (path, JSON text or dict) as a dict with the
    product's battery keys (capacity_ah, ocv_soc, ocv_v, [ocv_t_c, ocv_v_t], r0_ohm, rc (each
    pair r_ohm, c_f, [r_scale], [c_scale]), [r_soc, [r_t_c], r0_scale], [hysteresis],
    [r_ea_j_per_mol, r_ref_c], [cutoff_v], [coulombic_efficiency], name, description).
    Errors name the file (path:line for JSON syntax)."""
    where = "<BPX>"
    if isinstance(source, dict):
        d = source
    else:
        text = str(source)
        if not text.lstrip().startswith("{"):
            where = text
            with open(text, encoding="utf-8") as f:
                text = f.read()
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise BPXError(f"{where}:{e.lineno}: not JSON: {e.msg}") from None
    try:
        return _cell(d)
    except BPXPhysicsBased as e:
        raise BPXPhysicsBased(f"{where}: {e}") from None
    except BPXError as e:
        raise BPXError(f"{where}: {e}") from None


def _cell(d):
    if not isinstance(d, dict) or "Header" not in d or "Parameterisation" not in d:
        raise BPXError("not a BPX file: it needs 'Header' and 'Parameterisation'")
    head, par = d["Header"], d["Parameterisation"]
    model = head.get("Model")
    ud = par.get("User-defined") or {}
    ecm = "R0 [Ohm]" in ud and "Open-circuit voltage [V]" in ud
    physics = [s for s in _PHYSICS_SECTIONS if s in par]
    if not ecm and (model in ("SPM", "SPMe", "DFN") or physics):
        raise BPXPhysicsBased(
            f"this BPX file is a physics-based {model or 'partial'} parameter set "
            f"({', '.join(physics) or 'no equivalent circuit'}): sitsenergy models a cell as an "
            "equivalent circuit (OCV, R0, RC pairs); fit one to the cell's data with "
            "`sitsenergy calibrate --fit battery` instead")
    if not ecm:
        raise BPXError("no equivalent circuit: Parameterisation.User-defined needs "
                       "'Open-circuit voltage [V]' and 'R0 [Ohm]'")
    cell = {"name": re.sub(r"[^A-Za-z0-9_]+", "_", str(head.get("Title") or "bpx_cell")),
            "description": str(head.get("Description") or "")}
    cellsec = par.get("Cell") or {}
    for key in ("Nominal cell capacity [A.h]", "Cell capacity [A.h]"):  # BPX's, PyBaMM's ECM
        if key in ud:
            cell["capacity_ah"] = _number(ud, key)
            break
    else:
        if "Nominal cell capacity [A.h]" not in cellsec:
            raise BPXError("missing 'Nominal cell capacity [A.h]' (Parameterisation.User-defined "
                           "or .Cell)")
        cell["capacity_ah"] = _number(cellsec, "Nominal cell capacity [A.h]")
    q_by_t = ud.get("Cell capacity by temperature [A.h]")
    if q_by_t is not None:
        t_k, q_ah = _table(q_by_t, "Cell capacity by temperature [A.h]", min_points=2,
                           positive=True, x_range=(0.0, 1e4), x_name="temperature in K")
        if len(t_k) > 8:
            raise BPXError("'Cell capacity by temperature [A.h]' has more than 8 temperatures")
        cell["capacity_t_c"] = [round(t - 273.15, 10) for t in t_k]
        cell["capacity_scale"] = [q / cell["capacity_ah"] for q in q_ah]
    cell["ocv_soc"], cell["ocv_v"] = _table(ud["Open-circuit voltage [V]"],
                                            "Open-circuit voltage [V]")
    by_t = ud.get("Open-circuit voltage by temperature [V]")
    if by_t:
        if not isinstance(by_t, dict) or len(by_t) < 2:
            raise BPXError("'Open-circuit voltage by temperature [V]' needs 2 or more "
                           "temperatures")
        rows = sorted((float(k), _table(v, f"Open-circuit voltage at {k} K"))
                      for k, v in by_t.items())
        if any(r[1][0] != cell["ocv_soc"] for r in rows):
            raise BPXError("the OCV rows by temperature must share the SOC points of "
                           "'Open-circuit voltage [V]'")
        cell["ocv_t_c"] = [round(t - 273.15, 10) for t, _ in rows]
        cell["ocv_v_t"] = [r[1][1] for r in rows]
    cell["r0_ohm"] = _number(ud, "R0 [Ohm]")
    rc, k = [], 1
    while f"R{k} [Ohm]" in ud or f"C{k} [F]" in ud:
        rc.append({"r_ohm": _number(ud, f"R{k} [Ohm]"), "c_f": _number(ud, f"C{k} [F]")})
        k += 1
    cell["rc"] = rc
    r0_scale = _scaled(ud, "R0", "[Ohm]", cell["r0_ohm"], cell)
    if r0_scale is not None:
        cell["r0_scale"] = r0_scale
    for k, p in enumerate(rc, 1):
        for key, name, unit, ref in (("r_scale", f"R{k}", "[Ohm]", p["r_ohm"]),
                                     ("c_scale", f"C{k}", "[F]", p["c_f"])):
            t = _scaled(ud, name, unit, ref, cell)
            if t is not None:
                p[key] = t
    if cell.get("r_t_c", 0) is None:
        del cell["r_t_c"]
    for key in ud:  # a table for a pair the file does not have
        m = re.fullmatch(r"([RC])(\d+) by (?:temperature and )?SOC \[(?:Ohm|F)\]", key)
        if m and m.group(0)[:3] != "R0 " and not 1 <= int(m.group(2)) <= len(rc):
            raise BPXError(f"'{key}': the cell has no pair {m.group(2)} (its "
                           f"'{m.group(1)}{m.group(2)} [{'Ohm' if m.group(1) == 'R' else 'F'}]')")
    if "Hysteresis magnitude [V]" in ud or "Instantaneous hysteresis [V]" in ud:
        hy = {"m_v": _number(ud, "Hysteresis magnitude [V]", positive=False),
              "gamma": _number(ud, "Hysteresis decay rate"),
              "initial": _number(ud, "Initial hysteresis state", required=False, positive=False),
              "m0_v": _number(ud, "Instantaneous hysteresis [V]", required=False,
                              positive=False)}
        cell["hysteresis"] = {k: v for k, v in hy.items() if v is not None}
    ea = _number(ud, "Resistance activation energy [J.mol-1]", required=False)
    if ea is not None:
        cell["r_ea_j_per_mol"] = ea
        cell["r_ref_c"] = round(_number(ud, "Reference temperature [K]") - 273.15, 10)
    for key, name in (("Lower voltage cut-off [V]", "cutoff_v"),
                      ("Coulombic efficiency", "coulombic_efficiency")):
        v = _number(ud, key, required=False)
        if v is None and key in cellsec:  # BPX's Cell section carries the cut-offs
            v = _number(cellsec, key)
        if v is not None:
            cell[name] = v
    if cell.get("coulombic_efficiency", 1.0) > 1.0:
        raise BPXError("'Coulombic efficiency' must be in (0, 1]")
    return cell


def _arr(v):
    return "[" + ", ".join(repr(float(x)) for x in v) + "]"


def _rows(v):
    # a factor table: one row over SOC, or rows by temperature (a list of lists)
    if v and isinstance(v[0], list):
        return "( " + ",\n      ".join(_arr(r) for r in v) + " )"
    return _arr(v)


def _pair(p):
    text = f"{{ r_ohm = {p['r_ohm']!r}; c_f = {p['c_f']!r};"
    for key in ("r_scale", "c_scale"):
        if key in p:
            text += f" {key} = {_rows(p[key])};"
    return text + " }"


def to_config(source, name=None):
    """The text of a configs/batteries file (`battery = { ... };`, one cell, 1S1P) for the
    equivalent circuit of BPX `source` (path, text or dict)."""
    c = read(source)
    lines = [f"# From BPX: {c['name']}" + (f" ({c['description']})" if c["description"] else ""),
             "battery = {", f"  name = \"{name or c['name']}\";", "  series = 1;",
             "  parallel = 1;", f"  capacity_ah = {c['capacity_ah']!r};"]
    if "capacity_t_c" in c:
        lines.append(f"  capacity_t_c = {_arr(c['capacity_t_c'])};")
        lines.append(f"  capacity_scale = {_arr(c['capacity_scale'])};")
    lines.append(f"  ocv_soc = {_arr(c['ocv_soc'])};")
    if "ocv_t_c" in c:
        lines.append(f"  ocv_t_c = {_arr(c['ocv_t_c'])};")
        lines.append("  ocv_v = ( " + ",\n            ".join(_arr(row) for row in c["ocv_v_t"]) +
                     " );")
    else:
        lines.append(f"  ocv_v = {_arr(c['ocv_v'])};")
    if "r_soc" in c:
        lines.append(f"  r_soc = {_arr(c['r_soc'])};")
    if "r_t_c" in c:
        lines.append(f"  r_t_c = {_arr(c['r_t_c'])};")
    lines.append(f"  r0_ohm = {c['r0_ohm']!r};")
    if "r0_scale" in c:
        lines.append(f"  r0_scale = {_rows(c['r0_scale'])};")
    if c["rc"]:
        lines.append("  rc = ( " + ",\n         ".join(_pair(p) for p in c["rc"]) + " );")
    if "hysteresis" in c:
        lines.append("  hysteresis = { " + " ".join(f"{k} = {v!r};"
                                                     for k, v in c["hysteresis"].items()) + " };")
    if "r_ea_j_per_mol" in c:
        lines.append(f"  r_ea_j_per_mol = {c['r_ea_j_per_mol']!r};")
        lines.append(f"  r_ref_c = {c['r_ref_c']!r};")
    if "cutoff_v" in c:
        lines.append(f"  cutoff_v = {c['cutoff_v']!r};")
    if "coulombic_efficiency" in c:
        lines.append(f"  coulombic_efficiency = {c['coulombic_efficiency']!r};")
    lines.append("};")
    return "\n".join(lines) + "\n"


def write(scenario, path, title=None):
    """Writes the scenario's battery cell as BPX JSON to `path` (through the C library)."""
    d = scenario.bpx(title)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(d, f, indent=2)
        f.write("\n")
    return d
