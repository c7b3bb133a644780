// dcsim's own shared modules (sim/config/module.hpp): where they are looked for, and the errors a
// missing, foreign or out-of-date module gives.

#include "sim/config/module.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace sim::config {
namespace {

using ::testing::HasSubstr;

std::string error_of(const auto& call) {
  try {
    call();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Module, LooksBesideTheExecutableFirst) {
  const auto candidates = module_candidates("libdcsim_example.so");
  ASSERT_FALSE(candidates.empty());
  const auto exe = std::filesystem::read_symlink("/proc/self/exe");
  EXPECT_EQ(candidates.front(), (exe.parent_path() / "libdcsim_example.so").string());
  // The test runs from tests/config, not from the modules' build directory: both are looked in.
  ASSERT_EQ(candidates.size(), 2U);
  EXPECT_EQ(std::filesystem::path(candidates.back()).filename(), "libdcsim_example.so");
  EXPECT_NE(candidates.back(), candidates.front());
}

TEST(Module, MissingModuleNamesTheFileAndEveryPlaceLookedIn) {
  const std::string what = error_of(
      [] { load_module_symbol("libdcsim_no_such_module.so", "entry", "the unit test's output"); });
  EXPECT_THAT(what, HasSubstr("the unit test's output needs dcsim's module "
                              "libdcsim_no_such_module.so"));
  for (const auto& path : module_candidates("libdcsim_no_such_module.so")) {
    EXPECT_THAT(what, HasSubstr(path));
  }
}

TEST(Module, LoadsTheHdf5ModuleAndRejectsAnUnknownSymbol) {
  EXPECT_NE(load_module_symbol("libdcsim_hdf5.so", "dcsim_hdf5_module", "requests.h5"), nullptr);
  const std::string what = error_of(
      [] { load_module_symbol("libdcsim_hdf5.so", "dcsim_no_such_entry", "requests.h5"); });
  EXPECT_THAT(what, HasSubstr("is not a dcsim module (no symbol dcsim_no_such_entry)"));
}

TEST(Module, AbiMismatchAsksForARebuild) {
  EXPECT_NO_THROW(check_module_abi("libdcsim_hdf5.so", 3, 3));
  EXPECT_EQ(error_of([] { check_module_abi("libdcsim_hdf5.so", 2, 3); }),
            "dcsim's module libdcsim_hdf5.so is of another version (interface 2, this dcsim "
            "needs 3): rebuild dcsim");
}

struct FakeApi {
  int abi;
};

TEST(Module, LoadModuleApiChecksTheInterfaceVersion) {
  // The HDF5 module's table starts with its interface version, which is not 1000.
  const std::string what = error_of([] {
    (void)load_module_api<FakeApi>("libdcsim_hdf5.so", "dcsim_hdf5_module", 1000, "requests.h5");
  });
  EXPECT_THAT(what, HasSubstr("is of another version"));
  EXPECT_THAT(what, HasSubstr("this dcsim needs 1000"));
}

}  // namespace
}  // namespace sim::config
