#include "sim/metrics/csv_request_writer.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "temp_dir.hpp"

namespace sim::metrics {
namespace {

using testing::slurp;
using testing::TempDir;

NameTables names() {
  return {{"resnet50", "bert,large"}, {"shop", "search \"v2\""}};
}

RequestRecord ok_record() {
  RequestRecord r;
  r.id = 7;
  r.function = 0;
  r.application = 0;
  r.cls = RequestClass::kStrict;
  r.arrival = ms(1000);
  r.dispatch = ms(1020);
  r.start = ms(1050);
  r.finish = Time::from_ns(1100000001);
  r.queue_wait = ms(20);
  r.batching_wait = ms(30);
  r.cold_start_wait = Time::zero();
  r.execution = Time::from_ns(50000001);
  r.batch_size = 4;
  r.device = 3;
  r.slice = 1;
  r.outcome = Outcome::kOk;
  r.slo = ms(200);
  return r;
}

RequestRecord dropped_record() {
  RequestRecord r;
  r.id = 8;
  r.function = 1;
  r.application = 1;
  r.cls = RequestClass::kBestEffort;
  r.arrival = seconds(2);
  r.dispatch = seconds(3);
  r.start = seconds(3);
  r.finish = seconds(3);
  r.queue_wait = seconds(1);
  r.outcome = Outcome::kDropped;
  return r;
}

TEST(CsvRequestWriter, ExactTextForTwoRecords) {
  TempDir dir;
  CsvRequestWriter w(dir / "requests.csv", names());
  w.write(ok_record());
  w.write(dropped_record());
  EXPECT_FALSE(std::filesystem::exists(dir / "requests.csv"));
  EXPECT_EQ(w.records_written(), 2U);
  w.close();
  // latency_s of the first: 1.100000001 s - 1 s = 0.100000001 s, exact. The dropped request has
  // none. Names with a comma or quotes are quoted (RFC 4180).
  EXPECT_EQ(slurp(dir / "requests.csv"),
            "id,function,application,class,arrival_ns,dispatch_ns,start_ns,finish_ns,"
            "queue_wait_ns,batching_wait_ns,cold_start_wait_ns,execution_ns,batch_size,device,"
            "slice,outcome,slo_ns,latency_s\n"
            "7,resnet50,shop,strict,1000000000,1020000000,1050000000,1100000001,20000000,"
            "30000000,0,50000001,4,3,1,ok,200000000,0.100000001\n"
            "8,\"bert,large\",\"search \"\"v2\"\"\",best_effort,2000000000,3000000000,3000000000,"
            "3000000000,1000000000,0,0,0,0,-1,-1,dropped,0,\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"requests.csv"});
  EXPECT_THROW(w.write(ok_record()), std::logic_error);
  EXPECT_THROW(w.close(), std::logic_error);
}

TEST(CsvRequestWriter, UnknownNameIsAnErrorAndAbandonedFileVanishes) {
  TempDir dir;
  {
    CsvRequestWriter w(dir / "requests.csv", names());
    auto r = ok_record();
    r.function = 9;
    try {
      w.write(r);
      FAIL() << "expected an exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                (dir / "requests.csv").string() +
                    ": request 7: function id 9 has no name (the name table has 2 entries)");
    }
  }
  EXPECT_TRUE(dir.entries().empty());
}

// Per-function traces name functions as the run reaches them: the tables grow after creation.
TEST(CsvRequestWriter, NameTablesMayGrowButNotShrink) {
  TempDir dir;
  CsvRequestWriter w(dir / "requests.csv", NameTables{{"f0"}, {"a0"}});
  auto r = ok_record();
  r.function = 1;
  r.application = 0;
  EXPECT_THROW(w.write(r), std::invalid_argument);
  w.extend_names(NameTables{{"f0", "f,1"}, {"a0"}});
  w.write(r);
  EXPECT_THROW(w.extend_names(NameTables{{}, {"a0"}}), std::invalid_argument);
  w.close();
  EXPECT_NE(slurp(dir / "requests.csv").find("\n7,\"f,1\",a0,strict,"), std::string::npos)
      << slurp(dir / "requests.csv");
}

}  // namespace
}  // namespace sim::metrics
