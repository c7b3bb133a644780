# dcsim developer entry points. `make run` and `make test` are the two commands of the README.
PRESET ?= dev
JOBS ?= $(shell nproc)
SCENARIO ?= scenarios/quickstart.json

.PHONY: deps run test golden bench format tidy clean

deps:
	@scripts/install-deps

# Release build of the CLI, then the default scenario (no downloaded data needed). CI runs it
# with RUN_PRESET=ci, reusing the build its tests made instead of compiling a third time.
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
