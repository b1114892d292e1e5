# PushBridge: `make run` and `make test` are the whole set-up on a fresh machine.
# Tests run one at a time (--no-parallel): several start real servers and assert deadlines,
# and on a 2-core machine parallel suites starve each other's event loops.
SHELL := /bin/bash
DEB_PACKAGES := libmicrohttpd-dev libcurl4-openssl-dev libsqlite3-dev libssl-dev libpq-dev pkg-config sqlite3 curl openssl
PY_PACKAGES := onesignal-python-api==5.*
SWIFT ?= swift
CONFIG ?= config/demo.json

.PHONY: deps deps-test deps-python build release test run bench bench-translate fuzz docs clean package package-test rules-test

deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# What only the tests need: a PostgreSQL server for the throwaway cluster the PostgreSQL
# store's tests start (Tests/PushBridgeServerTests/Support/PostgresTestCluster.swift), and
# nginx, which DeploymentDocTests runs in front of two instances as docs/deployment.md says.
TEST_DEB_PACKAGES := postgresql nginx
# What the package's and the alert rules' tests need: dpkg-shlibdeps, lintian,
# systemd-analyze, promtool (packaging/test-package.sh, packaging/test-rules.sh).
TEST_DEB_PACKAGES += dpkg-dev binutils lintian systemd procps prometheus

deps-test: deps
	@missing=""; for p in $(TEST_DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

deps-python:
	@python3 -c "import onesignal" 2>/dev/null || python3 -m pip install -q "$(PY_PACKAGES)"

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: deps deps-test deps-python
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel
	packaging/test-rules.sh
	packaging/test-package.sh

# The demo's caller keys are demo-onesignal-key, demo-pushwoosh-auth and demo-buzzkit-token
# (config/demo.json holds only their SHA-256); its embedded sandbox needs no OpenPush key.
# `run` builds only the pushbridge binary and, on the demo, prints config/demo-welcome.txt.
WELCOME ?= $(if $(filter config/demo.json,$(CONFIG)),--welcome config/demo-welcome.txt,$(if $(filter config/demo-migration.json,$(CONFIG)),--welcome config/demo-migration-welcome.txt,))

run: deps
	@test -x .build/release/pushbridge || echo "Building pushbridge (release). The first build takes a couple of minutes; later ones are quick."
	@$(SWIFT) build -c release --product pushbridge
	@mkdir -p var
	@.build/release/pushbridge serve --config $(CONFIG) $(WELCOME)

bench-translate: deps
	$(SWIFT) build -c release --product translate-bench
	.build/release/translate-bench

# Side-by-side: direct nginx vs PushBridge vs nginx proxy_pass; latency, throughput, RSS,
# translation and audit, retention under load, one and two instances on PostgreSQL. Installs
# wrk, nginx and PostgreSQL when missing. Ends with issues 30 and 31's targets, each with its value
# in the run and whether it is met (docs/benchmarks.md, "Issues 30 and 31's targets in `make bench`").
bench: deps deps-test
	bench/run.sh

# libFuzzer, one target per dialect, FUZZ_SECONDS each (default 60). Crashes land in
# .build/fuzz/artifacts/; keep them in fuzz/regressions/ (replayed by FuzzRegressionTests).
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

# The Debian package (docs/deployment.md, "Installing the Debian package"):
# dist/pushbridge_<version>_amd64.deb from a static release build in .build/package.
package: deps
	@command -v dpkg-shlibdeps >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev binutils >/dev/null; }
	packaging/build-deb.sh

# The package's test (builds it first) and the alert rules' tests; both run in `make test`.
package-test: deps deps-test
	packaging/test-package.sh

rules-test: deps-test
	packaging/test-rules.sh

docs: build
	.build/debug/pushbridge docs field-mapping > docs/field-mapping.md

clean:
	rm -rf .build
