#!/usr/bin/env bash
# run_pytest.sh SOURCE_DIR LIBSITS WORK - the Python package as a user installs it: a virtual
# environment (Debian's python3-venv, with the system's cffi, numpy, pandas, h5py and pytest
# visible), `pip install` of a copy of python/ (no network, no build isolation: setuptools
# and wheel from Debian), then its pytest suite against the built library (SITSENERGY_LIB).
set -euo pipefail
src=$1 lib=$2 work=$3
# Debian's interpreter: the python3-* packages are its (another python3 may come first on PATH)
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3)
rm -rf "$work" && mkdir -p "$work"
# without the venv's own pip and setuptools wheels: Debian's pip, setuptools and wheel serve
# it (what ensurepip puts in a venv lacks wheel, and there is no network to fetch it)
"$py" -m venv --system-site-packages --without-pip "$work/venv"
cp -r "$src/python" "$work/pkg"
"$work/venv/bin/python" -m pip install --quiet --no-build-isolation --no-deps --no-index \
  "$work/pkg"
cd "$work"
where=$(SITSENERGY_LIB=$lib "$work/venv/bin/python" -c 'import sitsenergy; print(sitsenergy.__file__)')
case $where in
  "$work/venv/"*) ;;
  *) echo "run_pytest: sitsenergy imported from $where, not the virtual environment" >&2; exit 1 ;;
esac
SITSENERGY_LIB=$lib "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests"
