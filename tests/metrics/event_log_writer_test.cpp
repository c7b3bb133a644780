// events.csv (output.events): exact text, written atomically, and the level names.

#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/metrics/event_log.hpp"
#include "temp_dir.hpp"

namespace sim::metrics {
namespace {

using testing::slurp;
using testing::TempDir;

TEST(CsvEventWriter, ExactTextWrittenAtomically) {
  TempDir dir;
  CsvEventWriter w(dir / "events.csv");
  LifecycleEvent placed;
  placed.time = ms(1500);
  placed.event = "placed";
  placed.function = "vgg,19";  // a comma: quoted (RFC 4180)
  placed.model = "protean/vgg-19";
  placed.instance = 12;
  placed.host = 3;
  placed.gpu = 0;
  placed.device = 3;
  placed.slice = 1;
  placed.profile = "3g.20gb";
  placed.detail = "start=cold;max_batch=128";
  w.write(placed);
  LifecycleEvent host;
  host.time = Time::from_ns(350);
  host.event = "host_added";
  host.host = 8;
  w.write(host);
  EXPECT_FALSE(std::filesystem::exists(dir / "events.csv"));  // only the temporary so far
  EXPECT_EQ(w.events_written(), 2U);
  w.close();
  EXPECT_EQ(slurp(dir / "events.csv"),
            "time_s,event,function,model,instance,host,gpu,device,slice,profile,batch,detail\n"
            "1.5,placed,\"vgg,19\",protean/vgg-19,12,3,0,3,1,3g.20gb,-1,"
            "start=cold;max_batch=128\n"
            "0.00000035,host_added,,,-1,8,-1,-1,-1,,-1,\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"events.csv"});
  EXPECT_THROW(w.write(host), std::logic_error);
  EXPECT_THROW(w.close(), std::logic_error);
}

TEST(CsvEventWriter, AbandonedFileVanishesAndMissingDirectoryIsNamed) {
  TempDir dir;
  {
    CsvEventWriter w(dir / "events.csv");
    LifecycleEvent e;
    e.event = "ready";
    w.write(e);
  }  // destroyed without close(): an interrupted run leaves nothing under the final name
  EXPECT_TRUE(dir.entries().empty());
  try {
    CsvEventWriter w(dir / "missing" / "events.csv");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "missing").string()), std::string::npos)
        << e.what();
  }
}

TEST(EventLevel, ParsesTheSchemaChoices) {
  EXPECT_EQ(parse_event_level("none"), EventLevel::kNone);
  EXPECT_EQ(parse_event_level("lifecycle"), EventLevel::kLifecycle);
  EXPECT_EQ(parse_event_level("all"), EventLevel::kAll);
  EXPECT_THROW(parse_event_level("batches"), std::invalid_argument);
}

}  // namespace
}  // namespace sim::metrics
