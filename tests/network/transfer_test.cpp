#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <random>
#include <streambuf>

#include <fstream>
#include <sstream>

#include "sim/network/flows_tool.hpp"
#include "sim/network/topology_config.hpp"
#include "sim/network/transfer_manager.hpp"
#include "test_topologies.hpp"

namespace sim::net {
namespace {

constexpr double kGbit = 1.25e8;

TEST(TransferManager, SecondRequestJoinsTheTransferInFlight) {
  // 10 Gbit over a 10 Gbit/s path takes 1 s; the second request at 0.5 s joins it and finishes
  // at 1 s too, with no second flow.
  const Topology t = testing::star(2, 10e9);
  Simulation sim;
  FlowNetwork net(sim, t);
  TransferManager tm(net);
  Time d1, d2;
  const auto first = tm.fetch("bert", t.at("h1"), t.at("h2"), 10 * kGbit, [&] { d1 = sim.now(); });
  EXPECT_FALSE(first.joined);
  sim.schedule_at(seconds(0.5), [&] {
    const auto second =
        tm.fetch("bert", t.at("h1"), t.at("h2"), 10 * kGbit, [&] { d2 = sim.now(); });
    EXPECT_TRUE(second.joined);
    EXPECT_EQ(second.flow, first.flow);
    EXPECT_EQ(net.active_flows(), 1u);
    EXPECT_EQ(tm.waiting("bert", t.at("h2")), 2u);
  });
  sim.run();
  EXPECT_EQ(d1, seconds(1.0));
  EXPECT_EQ(d2, seconds(1.0));
  EXPECT_FALSE(tm.in_flight("bert", t.at("h2")));
  EXPECT_EQ(net.stats().flows_started, 1u);
}

TEST(TransferManager, CancellingTheLastRequestCancelsTheFlow) {
  const Topology t = testing::star(3, 10e9);
  Simulation sim;
  FlowNetwork net(sim, t);
  TransferManager tm(net);
  bool a_done = false, b_done = false;
  const auto a = tm.fetch("m", t.at("h1"), t.at("h2"), kGbit, [&] { a_done = true; });
  const auto b = tm.fetch("m", t.at("h3"), t.at("h2"), kGbit, [&] { b_done = true; });
  EXPECT_TRUE(b.joined);
  EXPECT_THROW(tm.fetch("m", t.at("h1"), t.at("h2"), 2 * kGbit, nullptr), std::invalid_argument);
  EXPECT_TRUE(tm.cancel(a.request));
  EXPECT_TRUE(net.active(a.flow));
  EXPECT_TRUE(tm.cancel(b.request));
  EXPECT_FALSE(tm.cancel(b.request));
  EXPECT_FALSE(net.active(a.flow));
  sim.run();
  EXPECT_FALSE(a_done);
  EXPECT_FALSE(b_done);
}

TEST(TransferManager, CloudStoreEgressIsShared) {
  // Two hosts download 2.203 Gbit each from the 2,203 Mbit/s store at once: 1,101.5 Mbit/s each,
  // so both finish at 2 s.
  const Topology t =
      load_topology(nlohmann::json{{"spines", 2}, {"leaves", 2}, {"hosts_per_leaf", 2}});
  Simulation sim;
  FlowNetwork net(sim, t);
  TransferManager tm(net);
  Time d1, d2;
  tm.fetch("t5", t.at("cloud"), t.at("host0"), 2.203 * kGbit, [&] { d1 = sim.now(); });
  tm.fetch("t5", t.at("cloud"), t.at("host3"), 2.203 * kGbit, [&] { d2 = sim.now(); });
  sim.run();
  // Path cloud -> border -> spine -> leaf -> host: 4 links of 0 + 1 + 1 + 1 us.
  EXPECT_EQ(d1, seconds(2.0) + us(3));
  EXPECT_EQ(d2, seconds(2.0) + us(3));
}

/// `name` in a directory of this test process: ctest runs the cases as parallel processes,
/// which would otherwise write the same /tmp/topo.json at once.
std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("dcsim-transfer-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(FlowsTool, OneLinkTwoFlowsRoundTrip) {
  // Two hosts on one leaf (50 Gbit/s, 1 us): flows of 50 and 25 Gbit at t = 0 share the
  // host0 uplink at 25 Gbit/s: the 25 Gbit flow ends at 1 s, the other at 1.5 s, plus 2 us.
  const std::string topo = write_temp(
      "topo.json", R"({"spines": 1, "leaves": 1, "hosts_per_leaf": 2, "object_stores": []})");
  const std::string flows = write_temp("flows.csv",
                                       "# comment\n"
                                       "id,src,dst,bytes,start\n"
                                       "7,host0,host1,6.25e9,0\n"
                                       "8,host0,host1,3.125GB,0\n");
  std::ostringstream out;
  EXPECT_EQ(run_flows_tool(topo, flows, out), 2u);
  EXPECT_EQ(out.str(),
            "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\n"
            "7,host0,host1,6250000000,0,1.500002,1.500002,1500002000,-\n"
            "8,host0,host1,3125000000,0,1.000002,1.000002,1000002000,-\n");
  // The atomic variant writes the same bytes.
  const std::string out_path = ::testing::TempDir() + "out.csv";
  run_flows_tool(topo, flows, out_path);
  std::ifstream in(out_path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), out.str());
}

TEST(FlowsTool, PinnedSpineIsReported) {
  const Topology t =
      load_topology(nlohmann::json{{"spines", 3}, {"leaves", 2}, {"hosts_per_leaf", 1}});
  std::istringstream csv(
      "id,src,dst,bytes,start,spine\n1,host0,host1,1e6,0,2\n"
      "2,host0,host1,1e6,0.5,spine1\n3,host0,host1,1e6,1,\n");
  const auto specs = read_flows_csv(csv, "f.csv", t);
  const auto results = simulate_flows(t, specs);
  EXPECT_EQ(results[0].spine, "spine2");
  EXPECT_EQ(results[1].spine, "spine1");
  EXPECT_NE(results[2].spine, "-");
}

// Node names are looked up in a table of the reader's own (by view, without a std::string per
// cell): every name of a fabric, as source and destination, with blanks around, names the node
// Topology::find names; a name it lacks still gets Topology::at's message.
TEST(FlowsTool, EveryNodeNameIsFound) {
  const Topology t =
      load_topology(nlohmann::json{{"spines", 4}, {"leaves", 10}, {"hosts_per_leaf", 20}});
  std::string text = "id,src,dst,bytes,start\n";
  std::uint64_t id = 1;
  for (NodeId a = 0; a < t.node_count(); ++a) {
    const NodeId b = static_cast<NodeId>((a * 7 + 3) % t.node_count());
    text += fmt::format("{}, {} ,\t{},1,0\n", id++, t.node(a).name, t.node(b).name);
  }
  std::istringstream in(text);
  const auto specs = read_flows_csv(in, "f.csv", t);
  ASSERT_EQ(specs.size(), t.node_count());
  for (NodeId a = 0; a < t.node_count(); ++a) {
    const NodeId b = static_cast<NodeId>((a * 7 + 3) % t.node_count());
    EXPECT_EQ(specs[a].src, *t.find(t.node(a).name));
    EXPECT_EQ(specs[a].dst, *t.find(t.node(b).name));
  }
  std::istringstream bad("id,src,dst,bytes,start\n1,host1,host2,1,0\n2,host1,host2000,1,0\n");
  try {
    (void)read_flows_csv(bad, "f.csv", t);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("f.csv: line 3: column \"dst\": unknown node \"host2000\"", 0),
        0u)
        << e.what();
  }
}

// The reader compares cells and looks names up by their first 24 characters and their size, and
// longer texts in full: names of 1 to 40 characters, many sharing their first 24, are each found
// (as source, repeated or not, and as destination); sizes and starts that agree on their first
// 24 characters but not after are each read.
TEST(FlowsTool, LongNamesAndCellsAreComparedInFull) {
  Topology t;
  const NodeId tor = t.add_node("tor", NodeKind::kLeaf);
  std::vector<std::string> names;
  for (std::size_t n = 1; n <= 40; ++n) {
    for (const char last : {'a', 'b'}) {
      std::string name(n - 1, 'x');
      name += last;
      names.push_back(name);
      t.add_link(t.add_node(name, NodeKind::kHost), tor, 10e9);
    }
  }
  std::string text = "id,src,dst,bytes,start\n";
  std::size_t id = 1;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& dst = names[(i * 7 + 3) % names.size()];
    // 25 characters, the first 24 zeros: i % 3 + 1 bytes, starting at i % 2 + 1 s.
    const std::string bytes = std::string(24, '0') + std::to_string(i % 3 + 1);
    const std::string start = std::string(24, '0') + std::to_string(i % 2 + 1);
    text += fmt::format("{},{},{},{},{}\n", id++, names[i], dst, bytes, start);
    text += fmt::format("{},{},{},{},{}\n", id++, names[i], dst, bytes, start);
  }
  std::istringstream in(text);
  const auto specs = read_flows_csv(in, "f.csv", t);
  ASSERT_EQ(specs.size(), 2 * names.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::size_t k = i / 2;
    EXPECT_EQ(specs[i].src, *t.find(names[k])) << i;
    EXPECT_EQ(specs[i].dst, *t.find(names[(k * 7 + 3) % names.size()])) << i;
    EXPECT_EQ(specs[i].bytes, double(k % 3 + 1)) << i;
    EXPECT_TRUE(specs[i].start == seconds(double(k % 2 + 1))) << i;
  }
  // A name that agrees with a node's on its first 24 characters and its size, but not after.
  std::istringstream bad("id,src,dst,bytes,start\n1," + names[60] + "," + names[61].substr(0, 30) +
                         "c,1,0\n");
  EXPECT_THROW((void)read_flows_csv(bad, "f.csv", t), std::invalid_argument);
}

TEST(FlowsTool, ErrorsNameFileAndLine) {
  const Topology t = testing::star(2, 10e9);
  auto error_of = [&](const std::string& text) {
    std::istringstream in(text);
    try {
      (void)read_flows_csv(in, "f.csv", t);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("id,src,dst,bytes\n"),
            "f.csv: line 1: expected a header with columns id,src,dst,bytes,start[,spine]; "
            "column \"start\" is missing (found \"id,src,dst,bytes\")");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n1,h1,h3,5,0\n"),
            "f.csv: line 2: column \"dst\": unknown node \"h3\" (did you mean \"h1\"?)");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n1,h1,h2,-5,0\n"),
            "f.csv: line 2: column \"bytes\": expected a size >= 0 in bytes (e.g. 1e9 or "
            "\"1GB\"), found \"-5\"");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n1,h1,h2,5,0\n1,h1,h2,5,0\n"),
            "f.csv: line 3: column \"id\": flow id 1 appears twice");
  // Ids in increasing order are not hashed until one comes out of order: a repeat is found
  // whenever it comes, before or after the first id out of order.
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n4,h1,h2,5,0\n9,h1,h2,5,0\n9,h1,h2,5,0\n"),
            "f.csv: line 4: column \"id\": flow id 9 appears twice");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n4,h1,h2,5,0\n9,h1,h2,5,0\n4,h1,h2,5,0\n"),
            "f.csv: line 4: column \"id\": flow id 4 appears twice");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n4,h1,h2,5,0\n9,h1,h2,5,0\n6,h1,h2,5,0\n"
                     "12,h1,h2,5,0\n6,h1,h2,5,0\n"),
            "f.csv: line 6: column \"id\": flow id 6 appears twice");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n4,h1,h2,5,0\n0,h1,h2,5,0\n9,h1,h2,5,0\n"
                     "0,h1,h2,5,0\n"),
            "f.csv: line 5: column \"id\": flow id 0 appears twice");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n4,h1,h2,5,0\n2,h1,h2,5,0\n9,h1,h2,5,0\n"),
            "no error");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n1,h1,h2,5\n"),
            "f.csv: line 2: expected 5 fields, found 4");
  EXPECT_EQ(error_of("id,src,dst,bytes,start,spine\n1,h1,h2,5,0,0\n"),
            "f.csv: line 2: column \"spine\": expected a spine index below 0, found 0");
  EXPECT_EQ(error_of(""), "f.csv: line 0: expected a header line id,src,dst,bytes,start[,spine]");
}

/// Inputs longer than the reader's 65,537-character buffer: lines that straddle a refill are read
/// whole (ids, a source that changes after a run of equal ones, a last line without '\n'), a
/// duplicate id is found across refills, and a too-long line far into the file is named by its
/// line number.
TEST(FlowsTool, LongInputsAreReadAcrossBufferRefills) {
  const Topology t = testing::star(3, 10e9);
  std::string text = "id,src,dst,bytes,start\n";
  constexpr int kFlows = 9000;  // ~20 bytes a line: about three buffers
  for (int i = 0; i < kFlows; ++i) {
    text += std::to_string(1000000 + i) + (i % 7 < 4 ? ",h1,h2," : ",h2,h3,") +
            std::to_string(i + 1) + "," + std::to_string(i % 13) + (i + 1 < kFlows ? "\n" : "");
  }
  {
    std::istringstream in(text);
    const auto specs = read_flows_csv(in, "f.csv", t);
    ASSERT_EQ(specs.size(), std::size_t{kFlows});
    for (int i = 0; i < kFlows; ++i) {
      ASSERT_EQ(specs[i].id, std::uint64_t(1000000 + i));
      ASSERT_EQ(specs[i].line, std::size_t(i + 2));
      ASSERT_EQ(specs[i].src, *t.find(i % 7 < 4 ? "h1" : "h2"));
      ASSERT_EQ(specs[i].dst, *t.find(i % 7 < 4 ? "h2" : "h3"));
      ASSERT_EQ(specs[i].bytes, double(i + 1));
    }
  }
  auto error_of = [&](const std::string& body) {
    std::istringstream in(body);
    try {
      (void)read_flows_csv(in, "f.csv", t);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(
      error_of(text + "\n1008000,h1,h2,1,0\n"),
      fmt::format("f.csv: line {}: column \"id\": flow id 1008000 appears twice", kFlows + 2));
  EXPECT_EQ(error_of(text + "\n0,h1,h2,1,0\n0,h1,h2,1,0\n"),
            fmt::format("f.csv: line {}: column \"id\": flow id 0 appears twice", kFlows + 3));
  EXPECT_EQ(error_of(text + "\n" + std::string(70000, 'x') + "\n"),
            fmt::format("f.csv: line {}: line longer than 65536 characters", kFlows + 2));
  // A blank line of exactly the limit is no error (and is skipped).
  EXPECT_EQ(
      error_of(text + "\n" + std::string(65536, ' ') + "\n1000005,h1,h2,1,0\n"),
      fmt::format("f.csv: line {}: column \"id\": flow id 1000005 appears twice", kFlows + 3));
}

/// An endless input without newlines (what `--flows /dev/zero` gives): the reader stops just
/// past its 65,536-character line limit with a located error instead of reading for ever.
TEST(FlowsTool, AnEndlessLineIsRejectedWithoutReadingOn) {
  struct Endless : std::streambuf {
    std::size_t served = 0;
    char chunk[4096];
    int_type underflow() override {
      std::fill(std::begin(chunk), std::end(chunk), '\0');
      served += sizeof chunk;
      setg(chunk, chunk, chunk + sizeof chunk);
      return traits_type::to_int_type(chunk[0]);
    }
  } zeros;
  std::istream in(&zeros);
  const Topology t = testing::star(2, 10e9);
  try {
    (void)read_flows_csv(in, "/dev/zero", t);
    FAIL() << "an endless line was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/zero: line 1: line longer than 65536 characters");
  }
  EXPECT_LE(zeros.served, std::size_t{(1 << 16) + 4096});
}

// Rows repeat the previous row's number fields (a burst shares its size and start, flows
// finishing together their finish and duration): the writer reuses the previous row's text for
// an equal value, and must write a changed one afresh, also when it equals an older row's.
TEST(FlowsTool, RepeatedFieldsAreWrittenAsFresh) {
  const Topology t = testing::star(2, 10e9);
  const auto result = [&](std::uint64_t id, double bytes, double start_s, std::int64_t finish_ns,
                          const char* spine) {
    FlowResult r;
    r.spec.id = id;
    r.spec.src = *t.find("h1");
    r.spec.dst = *t.find("h2");
    r.spec.bytes = bytes;
    r.spec.start = seconds(start_s);
    r.finish = Time::from_ns(finish_ns);
    r.spine = spine;
    return r;
  };
  const std::vector<FlowResult> rows = {
      result(1, 1e6, 0.5, 1250000000, "-"),
      result(2, 1e6, 0.5, 1250000000, "s0"),   // all four repeat
      result(3, 2.5e6, 0.5, 2000000001, "-"),  // the start repeats, the others change
      result(4, 1e6, 0.25, 1250000000, "-"),   // all equal to row 2's, none to row 3's
      result(5, 1e6, 0.25, 1250000000, "-"),
      result(6, 0.0, 0.0, 0, "-"),
      result(7, -0.0, 0.0, 0, "-")};  // -0.0 == 0.0, but fmt writes "-0"
  std::ostringstream out;
  write_flow_results(out, t, rows);
  EXPECT_EQ(out.str(),
            "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\n"
            "1,h1,h2,1000000,0.5,1.25,0.75,1250000000,-\n"
            "2,h1,h2,1000000,0.5,1.25,0.75,1250000000,s0\n"
            "3,h1,h2,2500000,0.5,2.000000001,1.500000001,2000000001,-\n"
            "4,h1,h2,1000000,0.25,1.25,1,1250000000,-\n"
            "5,h1,h2,1000000,0.25,1.25,1,1250000000,-\n"
            "6,h1,h2,0,0,0,0,0,-\n"
            "7,h1,h2,-0,0,0,0,0,-\n");
}

// Rows are formatted into a buffer written in pieces of 64 kB: many rows cross its ends, and a
// row longer than the whole buffer (a spine text of 200,000 characters) grows it.
TEST(FlowsTool, RowsAreWrittenAcrossBufferEnds) {
  const Topology t = testing::star(2, 10e9);
  std::vector<FlowResult> rows;
  std::string expected = "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\n";
  for (std::uint64_t i = 1; i <= 5000; ++i) {
    FlowResult r;
    r.spec.id = i;
    r.spec.src = *t.find("h1");
    r.spec.dst = *t.find("h2");
    r.spec.bytes = static_cast<double>(i % 3);
    r.spec.start = Time::from_ns(static_cast<std::int64_t>(i / 10) * 1000000000);
    r.finish = r.spec.start + Time::from_ns(500000000);
    r.spine = i == 2500 ? std::string(200000, 's')
              : i % 2   ? "a-spine-name-of-40-characters-----------"
                        : "-";
    // fmt's "{}" of the doubles defines the text (write_seconds's own paths are not needed).
    expected += fmt::format("{},h1,h2,{},{},{},{},{},{}\n", i, i % 3, r.spec.start.to_seconds(),
                            r.finish.to_seconds(), (r.finish - r.spec.start).to_seconds(),
                            r.finish.ns(), r.spine);
    rows.push_back(r);
  }
  std::ostringstream out;
  write_flow_results(out, t, rows);
  EXPECT_TRUE(out.str() == expected);
}

// --columns: the rows hold the chosen columns only, in the order asked. One leaf, two hosts
// (50 Gbit/s links of 1 us): flows 7 (50 Gbit) and 8 (25 Gbit) start at 0 on host0 -> host1 and
// share its uplink at 25 Gbit/s, so 8 ends at 1 s and 7, alone at 50 Gbit/s for its last
// 25 Gbit, at 1.5 s; flow 9 (40 Gbit, host1 -> host0) starts at 2 s alone and takes 0.8 s. Each
// finish adds the 2 us of the two links: 1.500002, 1.000002 and 2.800002 s; same leaf, so no
// spine ("-"). Times are written as ns * 1e-9 (Time::to_seconds): 800002000 * 1e-9 is the double
// 0.8000020000000001, not the one nearest 0.800002.
TEST(FlowsTool, ChosenColumnsAreWrittenInTheirOrder) {
  const std::string topo = write_temp(
      "cols-topo.json", R"({"spines": 1, "leaves": 1, "hosts_per_leaf": 2, "object_stores": []})");
  const std::string flows = write_temp("cols-flows.csv",
                                       "id,src,dst,bytes,start\n"
                                       "7,host0,host1,6.25e9,0\n"
                                       "8,host0,host1,3.125e9,0\n"
                                       "9,host1,host0,5e9,2\n");
  const auto run = [&](std::vector<FlowColumn> columns) {
    std::ostringstream out;
    EXPECT_EQ(run_flows_tool(topo, flows, out, columns), 3u);
    return out.str();
  };
  using C = FlowColumn;
  EXPECT_EQ(run({C::kId, C::kFinishS}), "id,finish_s\n7,1.500002\n8,1.000002\n9,2.800002\n");
  EXPECT_EQ(run({C::kFinishNs, C::kId}),
            "finish_ns,id\n1500002000,7\n1000002000,8\n2800002000,9\n");
  EXPECT_EQ(run({C::kDst, C::kDurationS, C::kStartS, C::kSpine, C::kSrc, C::kBytes, C::kFinishS}),
            "dst,duration_s,start_s,spine,src,bytes,finish_s\n"
            "host1,1.500002,0,-,host0,6250000000,1.500002\n"
            "host1,1.000002,0,-,host0,3125000000,1.000002\n"
            "host0,0.8000020000000001,2,-,host1,5000000000,2.800002\n");
  EXPECT_EQ(run({C::kSpine}), "spine\n-\n-\n-\n");
  // The default, and all nine named in their order, are the full rows.
  const std::string full =
      "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\n"
      "7,host0,host1,6250000000,0,1.500002,1.500002,1500002000,-\n"
      "8,host0,host1,3125000000,0,1.000002,1.000002,1000002000,-\n"
      "9,host1,host0,5000000000,2,2.800002,0.8000020000000001,2800002000,-\n";
  std::ostringstream by_default;
  run_flows_tool(topo, flows, by_default);
  EXPECT_EQ(by_default.str(), full);
  EXPECT_EQ(run(parse_flow_columns("id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine")),
            full);
  // The atomic variant writes the same bytes.
  const std::string out_path = write_temp("cols-out.csv", "");
  const std::vector<FlowColumn> two = {C::kId, C::kFinishS};
  run_flows_tool(topo, flows, out_path, two);
  std::ifstream in(out_path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "id,finish_s\n7,1.500002\n8,1.000002\n9,2.800002\n");
  // No column at all: an error before anything is read or written.
  const std::string none_path = out_path + ".none";
  EXPECT_THROW(run_flows_tool(topo, flows, none_path, {}), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(none_path));
  EXPECT_FALSE(std::filesystem::exists(none_path + ".tmp"));
  std::ostringstream none;
  EXPECT_THROW(run_flows_tool(topo, flows, none, {}), std::invalid_argument);
  EXPECT_EQ(none.str(), "");
}

// The chosen columns through write_flow_results: a spine given as text, and the reuse of a
// repeated field's text (the rows of RepeatedFieldsAreWrittenAsFresh) with only some columns.
TEST(FlowsTool, ChosenColumnsOfResults) {
  const Topology t = testing::star(2, 10e9);
  const auto result = [&](std::uint64_t id, double start_s, std::int64_t finish_ns,
                          const char* spine) {
    FlowResult r;
    r.spec.id = id;
    r.spec.src = *t.find("h1");
    r.spec.dst = *t.find("h2");
    r.spec.bytes = 1e6;
    r.spec.start = seconds(start_s);
    r.finish = Time::from_ns(finish_ns);
    r.spine = spine;
    return r;
  };
  const std::vector<FlowResult> rows = {
      result(1, 0.5, 1250000000, "-"), result(2, 0.5, 1250000000, "s0"),
      result(3, 0.5, 2000000001, "-"), result(4, 0.25, 1250000000, "-"),
      result(5, 0.25, 1250000000, "-")};
  using C = FlowColumn;
  const std::vector<FlowColumn> columns = {C::kSpine, C::kDurationS, C::kId, C::kFinishS};
  std::ostringstream out;
  write_flow_results(out, t, rows, columns);
  EXPECT_EQ(out.str(),
            "spine,duration_s,id,finish_s\n"
            "-,0.75,1,1.25\n"
            "s0,0.75,2,1.25\n"
            "-,1.500000001,3,2.000000001\n"
            "-,1,4,1.25\n"
            "-,1,5,1.25\n");
  // A spine text longer than the writer's buffer, as the last and as a middle column.
  std::vector<FlowResult> long_rows = {result(1, 0.5, 1250000000, "-"),
                                       result(2, 0.5, 1250000000, "-")};
  long_rows[1].spine = std::string(200000, 's');
  std::ostringstream last;
  write_flow_results(last, t, long_rows, std::vector<FlowColumn>{C::kId, C::kSpine});
  EXPECT_TRUE(last.str() == "id,spine\n1,-\n2," + long_rows[1].spine + "\n");
  std::ostringstream middle;
  write_flow_results(middle, t, long_rows, std::vector<FlowColumn>{C::kId, C::kSpine, C::kSrc});
  EXPECT_TRUE(middle.str() == "id,spine,src\n1,-,h1\n2," + long_rows[1].spine + ",h1\n");
}

// Any choice of columns is the full output's cells of those columns, in that order: random
// lists (some with repeats, which the library allows and the CLI rejects) over 5,000 rows whose
// fields repeat and change as a run's do, with spine texts of 1, 40 and 200,000 characters (the
// last longer than the writer's buffer).
TEST(FlowsTool, ChosenColumnsAreTheFullRowsCells) {
  const Topology t = testing::star(3, 10e9);
  std::vector<FlowResult> rows;
  for (std::uint64_t i = 1; i <= 5000; ++i) {
    FlowResult r;
    r.spec.id = i * 7919;
    r.spec.src = *t.find(i % 3 == 0 ? "h1" : "h3");
    r.spec.dst = *t.find(i % 5 == 0 ? "h1" : "h2");
    r.spec.bytes = static_cast<double>(i % 4) * 1.5e6;
    r.spec.start = Time::from_ns(static_cast<std::int64_t>(i / 10) * 100000007);
    r.finish = r.spec.start + Time::from_ns(static_cast<std::int64_t>(i % 7) * 250000001);
    r.spine = i == 2500 ? std::string(200000, 's')
              : i % 2   ? "spine-name-of-40-characters------------"
                        : "-";
    rows.push_back(r);
  }
  std::ostringstream full_out;
  write_flow_results(full_out, t, rows);
  // The full output's cells, by line (no cell holds a comma).
  std::vector<std::vector<std::string>> cells;
  {
    std::istringstream lines(full_out.str());
    std::string line;
    while (std::getline(lines, line)) {
      cells.emplace_back();
      std::size_t begin = 0;
      for (std::size_t comma; (comma = line.find(',', begin)) != std::string::npos;
           begin = comma + 1)
        cells.back().push_back(line.substr(begin, comma - begin));
      cells.back().push_back(line.substr(begin));
      ASSERT_EQ(cells.back().size(), 9u) << cells.size();
    }
  }
  ASSERT_EQ(cells.size(), rows.size() + 1);
  const auto all = all_flow_columns();
  std::mt19937 rng(20);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<FlowColumn> columns;
    const std::size_t n = 1 + rng() % 12;
    for (std::size_t k = 0; k < n; ++k)
      columns.push_back(all[rng() % all.size()]);
    std::string expected;
    for (const auto& line : cells) {
      for (std::size_t k = 0; k < columns.size(); ++k) {
        expected += line[static_cast<std::size_t>(columns[k])];
        expected += k + 1 < columns.size() ? ',' : '\n';
      }
    }
    std::ostringstream out;
    write_flow_results(out, t, rows, columns);
    EXPECT_TRUE(out.str() == expected) << "trial " << trial;
  }
}

// --columns' list: names in the order given; an empty list, an empty or unknown name and a
// repeated one are errors saying what was expected and what was found.
TEST(FlowsTool, ColumnListsAreParsed) {
  using C = FlowColumn;
  EXPECT_EQ(parse_flow_columns("id,finish_s"), (std::vector<FlowColumn>{C::kId, C::kFinishS}));
  EXPECT_EQ(parse_flow_columns("spine"), std::vector<FlowColumn>{C::kSpine});
  EXPECT_EQ(parse_flow_columns("finish_ns,dst,src,id"),
            (std::vector<FlowColumn>{C::kFinishNs, C::kDst, C::kSrc, C::kId}));
  const auto all = all_flow_columns();
  ASSERT_EQ(all.size(), 9u);
  std::string names;
  for (const FlowColumn c : all)
    names += std::string(names.empty() ? "" : ",") + std::string(flow_column_name(c));
  EXPECT_EQ(names, "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine");
  EXPECT_EQ(parse_flow_columns(names), std::vector<FlowColumn>(all.begin(), all.end()));
  const auto error_of = [](std::string_view list) {
    try {
      (void)parse_flow_columns(list);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string expected =
      "expected a comma-separated list of distinct column names among "
      "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine; found ";
  EXPECT_EQ(error_of(""), expected + "an empty list");
  EXPECT_EQ(error_of("id,finsh_s"), expected + "unknown column \"finsh_s\" in \"id,finsh_s\"");
  EXPECT_EQ(error_of("ID"), expected + "unknown column \"ID\" in \"ID\"");
  EXPECT_EQ(error_of("id, finish_s"),
            expected + "unknown column \" finish_s\" in \"id, finish_s\"");
  EXPECT_EQ(error_of("id,,finish_s"), expected + "an empty column name in \"id,,finish_s\"");
  EXPECT_EQ(error_of("id,"), expected + "an empty column name in \"id,\"");
  EXPECT_EQ(error_of("finish_s,id,finish_s"),
            expected + "column \"finish_s\" twice in \"finish_s,id,finish_s\"");
}

// Node names longer than the 32 characters the writer copies at once are written whole.
TEST(FlowsTool, LongNodeNamesAreWrittenWhole) {
  const std::string store = "a-store-whose-name-is-longer-than-thirty-two-characters";
  const std::string topo =
      write_temp("long-names.json",
                 R"({"spines": 1, "leaves": 1, "hosts_per_leaf": 2, "object_stores": [{"name": ")" +
                     store + R"(", "egress": "1Gbps"}]})");
  const std::string flows =
      write_temp("long-names.csv", "id,src,dst,bytes,start\n1," + store + ",host0,1e6,0\n2,host0," +
                                       store + ",1e6,0\n3,host0,host1,1e6,0\n");
  std::ostringstream out;
  ASSERT_EQ(run_flows_tool(topo, flows, out), 3u);
  std::istringstream rows(out.str());
  std::string line;
  std::getline(rows, line);
  std::getline(rows, line);
  EXPECT_EQ(line.rfind("1," + store + ",host0,1000000,0,", 0), 0u) << line;
  std::getline(rows, line);
  EXPECT_EQ(line.rfind("2,host0," + store + ",1000000,0,", 0), 0u) << line;
  std::getline(rows, line);
  EXPECT_EQ(line.rfind("3,host0,host1,1000000,0,", 0), 0u) << line;
  EXPECT_EQ(line.substr(line.size() - 2), ",-") << line;
}

// Lines of fewer than 64 characters without blanks are split from bit masks of 64 bytes; the
// others (blanks to trim, 64 characters or more) as before: both give the same cells, and the
// same errors.
TEST(FlowsTool, PlainAndBlankLinesAreSplitAlike) {
  const Topology t = testing::star(2, 10e9);
  const std::string pad(40, '0');  // leading zeros: a line of 64 characters or more
  std::istringstream in(
      "id,src,dst,bytes,start\n"
      "1,h1,h2,5,0\n"
      " 2 ,h1,\th2,6,0.5\r\n"
      "#,comment,,,\n"
      "\n"
      "3,h2,h1,7,1\n" +
      pad + "4,h2,h1," + std::string(8, '0') + "8,2\n" +  // 63 characters
      pad + "5,h2,h1," + std::string(9, '0') + "9,3\n" +  // 64
      pad + "6,h2,h1," + std::string(10, '0') + "10,4");  // 66, no '\n'
  const auto specs = read_flows_csv(in, "f.csv", t);
  ASSERT_EQ(specs.size(), 6u);
  const std::uint64_t ids[] = {1, 2, 3, 4, 5, 6};
  const double bytes[] = {5, 6, 7, 8, 9, 10};
  const std::int64_t start_ns[] = {0, 500000000, 1000000000, 2000000000, 3000000000, 4000000000};
  const std::size_t lines[] = {2, 3, 6, 7, 8, 9};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].id, ids[i]) << i;
    EXPECT_EQ(specs[i].src, *t.find(i < 2 ? "h1" : "h2")) << i;
    EXPECT_EQ(specs[i].dst, *t.find(i < 2 ? "h2" : "h1")) << i;
    EXPECT_EQ(specs[i].bytes, bytes[i]) << i;
    EXPECT_EQ(specs[i].start.ns(), start_ns[i]) << i;
    EXPECT_EQ(specs[i].line, lines[i]) << i;
  }
  auto error_of = [&](const std::string& text) {
    std::istringstream bad(text);
    try {
      (void)read_flows_csv(bad, "f.csv", t);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n1,h1,h2,5,0,\n"),
            "f.csv: line 2: expected 5 fields, found 6");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n1,h1,h2,5,0 ,\n"),
            "f.csv: line 2: expected 5 fields, found 6");
  EXPECT_EQ(error_of("id,src,dst,bytes,start\n1,h1,,5,0\n"),
            "f.csv: line 2: column \"dst\": unknown node \"\" (did you mean \"h1\"?)");
  EXPECT_EQ(error_of("id,src,dst,bytes\n"),
            "f.csv: line 1: expected a header with columns id,src,dst,bytes,start[,spine]; "
            "column \"start\" is missing (found \"id,src,dst,bytes\")");
  EXPECT_EQ(error_of(" id,src,dst,bytes \n"),
            "f.csv: line 1: expected a header with columns id,src,dst,bytes,start[,spine]; "
            "column \"start\" is missing (found \"id,src,dst,bytes\")");
}

// The reader reuses the previous line's size and start when the cell's text is the same: equal
// texts give equal values, different texts of one value and a bad cell after good ones are read
// as always.
TEST(FlowsTool, RepeatedCellsAreReadAsFresh) {
  const Topology t = testing::star(2, 10e9);
  std::istringstream in(
      "id,src,dst,bytes,start\n1,h1,h2,1e6,0.5\n2,h1,h2, 1e6 ,0.5\n3,h1,h2,1000000,0.50\n"
      "4,h1,h2,2MB,0.50\n5,h1,h2,2MB,0.75\n");
  const auto specs = read_flows_csv(in, "f.csv", t);
  ASSERT_EQ(specs.size(), 5u);
  const double bytes[] = {1e6, 1e6, 1e6, 2e6, 2e6};
  const std::int64_t start_ns[] = {500000000, 500000000, 500000000, 500000000, 750000000};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].bytes, bytes[i]) << i;
    EXPECT_EQ(specs[i].start.ns(), start_ns[i]) << i;
  }
  std::istringstream bad("id,src,dst,bytes,start\n1,h1,h2,5,1\n2,h1,h2,5,1\n3,h1,h2,5x,1\n");
  try {
    (void)read_flows_csv(bad, "f.csv", t);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "f.csv: line 4: column \"bytes\": expected a size >= 0 in bytes (e.g. 1e9 or "
                 "\"1GB\"), found \"5x\"");
  }
}

TEST(FlowsTool, MissingFilesAreReported) {
  std::ostringstream out;
  try {
    run_flows_tool("/nonexistent/t.json", "/nonexistent/f.csv", out);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/t.json: cannot read: no such file");
  }
}

}  // namespace
}  // namespace sim::net
