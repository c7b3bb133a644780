#include "sim/metrics/hdf5_request_writer.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "sim/engine/random.hpp"
#include "temp_dir.hpp"

namespace sim::metrics {
namespace {

using testing::TempDir;

// Records whose every field varies, including extremes, so a swapped or narrowed column shows.
std::vector<RequestRecord> random_records(std::size_t n, std::uint32_t functions,
                                          std::uint32_t applications) {
  RandomStream rng(2024);
  std::vector<RequestRecord> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    RequestRecord r;
    r.id = i == 0 ? std::numeric_limits<std::uint64_t>::max() : rng.next_u64();
    r.function = static_cast<std::uint32_t>(rng.uniform_int(0, functions - 1));
    r.application = static_cast<std::uint32_t>(rng.uniform_int(0, applications - 1));
    r.cls = rng.bernoulli(0.5) ? RequestClass::kStrict : RequestClass::kBestEffort;
    r.arrival = Time::from_ns(static_cast<std::int64_t>(rng.uniform_int(0, 1ULL << 50)));
    r.queue_wait = Time::from_ns(static_cast<std::int64_t>(rng.uniform_int(0, 1000000000)));
    r.batching_wait = Time::from_ns(static_cast<std::int64_t>(rng.uniform_int(0, 50000000)));
    r.cold_start_wait =
        rng.bernoulli(0.1)
            ? Time::from_ns(static_cast<std::int64_t>(rng.uniform_int(1, 1ULL << 34)))
            : Time::zero();
    r.execution = Time::from_ns(static_cast<std::int64_t>(rng.uniform_int(1, 100000000)));
    r.dispatch = r.arrival + r.queue_wait;
    r.start = r.dispatch + r.batching_wait + r.cold_start_wait;
    r.finish = r.start + r.execution;
    r.batch_size = static_cast<std::uint32_t>(rng.uniform_int(1, 64));
    r.device = i == 1 ? std::numeric_limits<std::int32_t>::min()
                      : static_cast<std::int32_t>(rng.uniform_int(0, 2000)) - 1;
    r.slice = static_cast<std::int32_t>(rng.uniform_int(0, 7)) - 1;
    r.outcome = static_cast<Outcome>(rng.uniform_int(0, 2));
    r.slo = rng.bernoulli(0.7) ? ms(static_cast<std::int64_t>(rng.uniform_int(10, 5000)))
                               : Time::zero();
    out.push_back(r);
  }
  return out;
}

TEST(Hdf5RequestWriter, RoundTripOf150kRecords) {
  TempDir dir;
  NameTables names;
  for (int i = 0; i < 40; ++i)
    names.functions.push_back("fn-" + std::to_string(i));
  names.applications = {"app-α", "app two", ""};  // UTF-8 and an empty name survive
  const auto records = random_records(150000, 40, 3);
  const auto path = dir / "requests.h5";
  {
    Hdf5RequestWriter w(path, names);
    for (const auto& r : records)
      w.write(r);
    EXPECT_EQ(w.records_written(), records.size());
    EXPECT_FALSE(std::filesystem::exists(path));  // still under its temporary name
    w.close();
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"requests.h5"});
  const RequestFile back = read_requests_h5(path);
  EXPECT_EQ(back.names, names);
  ASSERT_EQ(back.records.size(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (back.records[i] != records[i]) {
      FAIL() << "record " << i << " differs after the round trip";
    }
  }
}

TEST(Hdf5RequestWriter, EmptyFileAndSmallChunks) {
  TempDir dir;
  {
    Hdf5RequestWriter w(dir / "empty.h5", NameTables{});
    w.close();
  }
  const auto empty = read_requests_h5(dir / "empty.h5");
  EXPECT_TRUE(empty.records.empty());
  EXPECT_TRUE(empty.names.functions.empty());

  // 10 records in chunks of 3 (three full flushes and a partial one), no compression.
  const auto records = random_records(10, 2, 1);
  {
    Hdf5RequestWriter w(dir / "small.h5", NameTables{{"a", "b"}, {"x"}}, 3, 0);
    for (const auto& r : records)
      w.write(r);
    w.close();
  }
  EXPECT_EQ(read_requests_h5(dir / "small.h5").records, records);
}

// Whole chunks are shuffled and deflated by the writer itself (hdf5_chunk_encoder.hpp) and
// written as they are; the library inflates and unshuffles them on reading.
TEST(Hdf5RequestWriter, CompressedWholeChunksReadBack) {
  TempDir dir;
  // Chunks of 3 random records: deflating 3 random ids (24 bytes) does not make them smaller,
  // so such chunks are stored shuffled only (the deflate filter's mask bit set); the partial
  // last chunk goes through the library's filters.
  const auto records = random_records(10, 2, 1);
  {
    Hdf5RequestWriter w(dir / "small.h5", NameTables{{"a", "b"}, {"x"}}, 3, 1);
    for (const auto& r : records)
      w.write(r);
    w.close();
  }
  EXPECT_EQ(read_requests_h5(dir / "small.h5").records, records);

  // 1,000 copies of one record in chunks of 100: 102 bytes a row uncompressed (102,000
  // bytes); each chunk's shuffled runs deflate to a few dozen bytes, so the compressed file is
  // smaller than the uncompressed one by nearly all of that (the metadata is the same).
  const std::vector<RequestRecord> same(1000, random_records(3, 2, 1)[2]);
  for (const int level : {0, 1}) {
    Hdf5RequestWriter w(dir / ("same" + std::to_string(level) + ".h5"),
                        NameTables{{"a", "b"}, {"x"}}, 100, level);
    for (const auto& r : same)
      w.write(r);
    w.close();
  }
  EXPECT_EQ(read_requests_h5(dir / "same1.h5").records, same);
  EXPECT_LT(std::filesystem::file_size(dir / "same1.h5") + 90000U,
            std::filesystem::file_size(dir / "same0.h5"));
}

TEST(Hdf5RequestWriter, AbandonedWriterLeavesNoFile) {
  TempDir dir;
  {
    Hdf5RequestWriter w(dir / "requests.h5", NameTables{{"f"}, {"a"}}, 4);
    for (const auto& r : random_records(9, 1, 1))
      w.write(r);  // two chunks already on disk
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(Hdf5RequestWriter, RejectsBadArgumentsAndUnnamedIds) {
  TempDir dir;
  EXPECT_THROW(Hdf5RequestWriter(dir / "a.h5", NameTables{}, 0), std::invalid_argument);
  EXPECT_THROW(Hdf5RequestWriter(dir / "a.h5", NameTables{}, 8, 10), std::invalid_argument);
  Hdf5RequestWriter w(dir / "b.h5", NameTables{{"f"}, {"a"}});
  RequestRecord r;
  r.application = 1;
  EXPECT_THROW(w.write(r), std::invalid_argument);
  EXPECT_EQ(w.records_written(), 0U);
}

TEST(ReadRequestsH5, ReportsTheFileAndTheProblem) {
  TempDir dir;
  const auto missing = dir / "missing.h5";
  try {
    (void)read_requests_h5(missing);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), missing.string() + ": no such file");
  }
  const auto text = dir / "text.h5";
  std::ofstream(text) << "id,function\n";
  try {
    (void)read_requests_h5(text);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), text.string() + ": not an HDF5 file");
  }
}

// The name tables are written at close(), so they may grow while the run discovers functions
// (Azure per-function traces); they may not lose or reorder names.
TEST(Hdf5RequestWriter, NameTablesMayGrowUntilClose) {
  TempDir dir;
  const auto records = random_records(20, 3, 2);
  {
    Hdf5RequestWriter w(dir / "grow.h5", NameTables{{"f0"}, {"a0"}}, 4);
    const NameTables grown{{"f0", "f1", "f2"}, {"a0", "a1"}};
    EXPECT_THROW(w.extend_names(NameTables{{"other", "f1", "f2"}, {"a0", "a1"}}),
                 std::invalid_argument);
    w.extend_names(grown);
    for (const auto& r : records)
      w.write(r);
    w.close();
  }
  const auto file = read_requests_h5(dir / "grow.h5");
  EXPECT_EQ(file.records, records);
  EXPECT_EQ(file.names, (NameTables{{"f0", "f1", "f2"}, {"a0", "a1"}}));
}

}  // namespace
}  // namespace sim::metrics
