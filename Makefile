# dcsim developer entry points. `make run` and `make test` are the two commands of the README.
PRESET ?= dev
JOBS ?= $(shell nproc)
SCENARIO ?= scenarios/quickstart.json

.PHONY: deps run test golden golden-check bench format tidy clean

deps:
	@scripts/install-deps

# Release build of the CLI, then the default scenario (no downloaded data needed).
RUN_PRESET ?= release
run: deps
	cmake --preset $(RUN_PRESET) >/dev/null
	cmake --build --preset $(RUN_PRESET) -j $(JOBS) --target dcsim
	build/$(RUN_PRESET)/src/cli/dcsim run $(SCENARIO) --out out

# Builds everything in $(PRESET) (dev by default; CI uses ci and asan-ubsan) and runs ctest.
test: deps
	cmake --preset $(PRESET) >/dev/null
	cmake --build --preset $(PRESET) -j $(JOBS)
	ctest --preset $(PRESET) -j $(JOBS) $(CTEST_ARGS)

# Regenerates every golden file (tests/golden/) from the ci build and prints each metric that
# moved. Commit the result only with a message that explains why the metrics moved.
GOLDEN_FILES ?= $(shell find tests/golden -name '*.json' | sort)
golden: deps
	cmake --preset ci >/dev/null
	cmake --build --preset ci -j $(JOBS) --target dcsim
	build/ci/src/cli/dcsim check --update $(GOLDEN_FILES)

# Checks every golden file with $(RUN_PRESET)'s dcsim (Release by default: the build `make run`
# and `make bench` use; ctest checks them in $(PRESET)). Prints the comparison of a file that
# fails and stops there.
golden-check: deps
	cmake --preset $(RUN_PRESET) >/dev/null
	cmake --build --preset $(RUN_PRESET) -j $(JOBS) --target dcsim
	@n=0; for f in $(GOLDEN_FILES); do \
	  report=$$(build/$(RUN_PRESET)/src/cli/dcsim check --run $$f 2>&1) || \
	    { echo "$$report"; echo "golden-check: $$f fails with build/$(RUN_PRESET)"; exit 1; }; \
	  n=$$((n + 1)); \
	done; echo "golden-check: $$n golden files pass with build/$(RUN_PRESET)"

bench: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)
	@for b in build/release/bench/bench_*; do echo "== $$b"; $$b; done

format:
	git ls-files '*.cpp' '*.hpp' | xargs clang-format -i

tidy:
	cmake --preset dev >/dev/null
	git ls-files 'src/*.cpp' | xargs clang-tidy -p build/dev --quiet

clean:
	rm -rf build out
