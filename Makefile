# Set-up and entry points. `make train` and `make test` each create (or reuse) .venv.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# Without an NVIDIA GPU, pin torch to the CPU wheel (and look for it in /opt/wheels if present).
HAS_GPU := $(shell command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && echo yes)
PIP_FLAGS := $(if $(HAS_GPU),,-c scripts/constraints-cpu.txt) $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)

.PHONY: venv browser train test test-all bench clean

$(VENV)/.installed: pyproject.toml scripts/constraints-cpu.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(PIP_FLAGS) -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

# The browser test (tests/test_web_browser.py) drives Debian's chromium through chromedriver;
# install both with apt-get when either is missing (as root, or through sudo).
BROWSER_PKGS := chromium chromium-driver
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then \
	  echo "installing $(BROWSER_PKGS) with apt-get (needed by the browser test)"; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $(BROWSER_PKGS); \
	fi

train: venv
	$(VENV)/bin/catena-zero train --config configs/quick.yaml

test: venv browser
	$(PY) -m pytest -q

test-all: venv browser
	$(PY) -m pytest -q -m ''

bench: venv
	$(PY) scripts/bench_env.py
	$(PY) scripts/bench_search.py
	$(PY) scripts/bench_net.py
	$(PY) scripts/bench_selfplay.py

clean:
	rm -rf $(VENV)
