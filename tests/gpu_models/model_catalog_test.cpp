#include "sim/gpu_models/model_catalog.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "test_helpers.hpp"

namespace sim::gpu {
namespace {

using testing::repo_catalog;

std::size_t count_family(const ModelCatalog& c, const std::string& family) {
  std::size_t n = 0;
  for (const auto& [name, m] : c.models())
    n += m.family == family ? 1 : 0;
  return n;
}

TEST(ModelCatalog, LoadsEveryPaperFamily) {
  const auto& c = repo_catalog();
  EXPECT_EQ(count_family(c, "protean"), 22u);
  EXPECT_EQ(count_family(c, "flashpoint"), 6u);
  EXPECT_EQ(count_family(c, "harmonybatch"), 4u);
  EXPECT_EQ(count_family(c, "infless"), 11u);
  const auto names = c.names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(c.gpu_names(),
            (std::vector<std::string>{"A10", "A100-40GB", "H100-80GB", "RTX-2080Ti"}));
}

TEST(ModelCatalog, ProteanModelsRespectThePapersRanges) {
  const auto& c = repo_catalog();
  double vision_fbr = 0, language_fbr = 0;
  int vision = 0, language = 0;
  for (const auto& [name, m] : c.models()) {
    if (m.family != "protean") continue;
    const auto& g = *m.gpu;
    const int b = g.reference_batch->value;
    // Protean §5: batch 128 (vision) / 4 (language), 50-200 ms on 7g, ~2-14 GB per batch.
    EXPECT_EQ(b, m.domain == "vision" ? 128 : 4) << name;
    EXPECT_GE(g.latency_s(b), 0.050) << name;
    EXPECT_LE(g.latency_s(b), 0.200 + 1e-12) << name;
    EXPECT_GE(m.memory_gb(), 2.0) << name;
    EXPECT_LE(m.memory_gb(), 14.0) << name;
    // RDF of every A100 profile, growing as slices shrink.
    const auto& gpu = c.gpu("A100-40GB");
    double prev = 0;
    for (const auto& p : gpu.mig_profiles) {
      const double r = m.rdf(gpu, &p);
      EXPECT_GE(r, prev) << name << " " << p.name;
      prev = r;
    }
    if (m.domain == "vision") {
      vision_fbr += g.fbr->value;
      ++vision;
      EXPECT_TRUE(g.interference_class == "LI" || g.interference_class == "HI") << name;
    } else {
      language_fbr += g.fbr->value;
      ++language;
      EXPECT_EQ(g.interference_class, "VHI") << name;
    }
  }
  EXPECT_EQ(vision, 12);
  EXPECT_EQ(language, 10);
  // Protean §6.4: VHI FBRs are 59% higher on average than the vision models'.
  EXPECT_NEAR((language_fbr / language) / (vision_fbr / vision), 1.59, 0.005);
  // Protean §2.2: ALBERT's batch time grows 2.15x from resource deficiency (on 3g, assumed).
  const auto& gpu = c.gpu("A100-40GB");
  EXPECT_NEAR(c.model("protean/albert").rdf(gpu, &gpu.profile("3g.20gb")), 2.15, 1e-9);
}

TEST(ModelCatalog, HarmonyBatchVgg19CoefficientsAreThePublishedOnes) {
  const auto& m = repo_catalog().model("harmonybatch/vgg19");
  const double avg[4][3] = {{1.82607, 0.52837, 0.18015},
                            {4.84907, 0.43225, 0.36448},
                            {6.52504, 0.45923, 0.53347},
                            {8.92256, 0.44847, 0.75699}};
  const double max[4][3] = {{2.80468, 0.48620, 0.24860},
                            {4.92190, 0.48909, 0.39328},
                            {6.94390, 0.50516, 0.56954},
                            {9.65160, 0.46593, 0.82877}};
  ASSERT_EQ(m.cpu->max_batch(), 4);
  for (int b = 0; b < 4; ++b) {
    EXPECT_NEAR(m.cpu->avg[b].alpha, avg[b][0], 5e-6);
    EXPECT_NEAR(m.cpu->avg[b].beta, avg[b][1], 5e-6);
    EXPECT_NEAR(m.cpu->avg[b].gamma, avg[b][2], 5e-6);
    EXPECT_NEAR(m.cpu->max[b].alpha, max[b][0], 5e-6);
    EXPECT_NEAR(m.cpu->max[b].beta, max[b][1], 5e-6);
    EXPECT_NEAR(m.cpu->max[b].gamma, max[b][2], 5e-6);
  }
  EXPECT_NEAR(m.gpu->xi1_s.value, 0.0016798, 5e-8);
  EXPECT_NEAR(m.gpu->xi2_s.value, 0.0021131, 5e-8);
  EXPECT_EQ(m.gpu->reference_gpu, "A10");
  EXPECT_DOUBLE_EQ(m.cgpu->tau_s.value, 0.002);
  EXPECT_DOUBLE_EQ(m.cgpu->m_max_gb.value, 24);
  // gpu_mem [0]: VGG-19 needs 2 GB for every batch (implementations.md §1.5).
  EXPECT_EQ(m.cgpu->min_memory_gb(1), 2);
  EXPECT_EQ(repo_catalog().model("harmonybatch/videomae").cgpu->min_memory_gb(5), 3);
}

TEST(ModelCatalog, FlashpointT5IsConsistentWithSection413) {
  const auto& m = repo_catalog().model("flashpoint/t5-3b");
  const auto& cs = *m.cold_start;
  // §3.4.1: 41 s download at 2,203 Mbit/s, 14.138 s load, 1.206 s copy; Table 3.1: 11,408 MB.
  EXPECT_DOUBLE_EQ(cs.size_mb.value, 11408);
  EXPECT_DOUBLE_EQ(cs.download_s.value, 41.0);
  EXPECT_DOUBLE_EQ(cs.load_s.value, 14.138);
  EXPECT_DOUBLE_EQ(cs.copy_s.value, 1.206);
  // 11,408 MB x 8 / 2,203 Mbit/s = 41.4 s, i.e. "approximately 41 seconds".
  EXPECT_NEAR(cs.size_mb.value * 8 / cs.download_bandwidth_mbps.value, 41.0, 0.5);
  // §4.1.3: 55 layers, 25.974 s cold start; 55 partitions -> 589 ms and +43.94% inference.
  ASSERT_EQ(cs.layers.size(), 55u);
  EXPECT_NEAR(cs.layer_cold_start_total_s(), 25.974, 1e-6);
  std::vector<int> cuts(54);
  std::iota(cuts.begin(), cuts.end(), 0);
  const auto all = cs.partition(cuts, 10e9);
  const auto none = cs.partition({}, 10e9);
  EXPECT_EQ(all.partitions, 55);
  EXPECT_NEAR(all.cold_start_s, 0.589, 1e-9);
  EXPECT_NEAR(none.cold_start_s, 25.974, 1e-6);
  EXPECT_NEAR(all.inference_s / none.inference_s - 1.0, 0.4394, 5e-4);
  // 25.974 / 0.589 = 44.10x shorter (§4.1.3).
  EXPECT_NEAR(none.cold_start_s / all.cold_start_s, 44.10, 0.01);
  // Sizes of all six models span 499 MB to 11,408 MB (Table 3.1).
  EXPECT_DOUBLE_EQ(repo_catalog().model("flashpoint/codebert").cold_start->size_mb.value, 499);
}

TEST(ModelCatalog, InflessModelsUseTheMeasuredTables) {
  const auto& c = repo_catalog();
  const auto& r = *c.model("infless/resnet-50").operators;
  // implementations.md §3.3: 4 threads + 10% GPU at batch 4 -> 98.75 ms (shown as 98.8);
  // 8 threads + 50% at batch 8 -> 114.88 ms.
  EXPECT_DOUBLE_EQ(r.cop_ms(4, 4, 10, false).value(), 98.75);
  EXPECT_NEAR(r.cop_ms(8, 8, 50, false).value(), 114.88, 1e-9);
  // INFless §3.3: +10% prediction offset.
  EXPECT_NEAR(r.cop_ms(8, 8, 50, true).value(), 114.88 * 1.1, 1e-9);
  // Conv2D is 95.5% of ResNet-50's time (Fig. 7b: > 95%).
  EXPECT_NEAR(r.operator_ms(0, 8, 8, 50).value(), 0.955 * 114.88, 1e-9);
  // Derived tables: VGGNet = ResNet-50 x 5.55 / 3.89 (Table 1 GFLOPs); infeasible stays so.
  const auto& v = *c.model("infless/vggnet").operators;
  EXPECT_NEAR(v.cop_ms(8, 8, 50, false).value(), 114.88 * 5.55 / 3.89, 1e-3);
  EXPECT_FALSE(v.cop_ms(32, 8, 50, false).has_value());
  // MNIST is derived from TextCNN-69: feasible exactly where TextCNN-69 is.
  const auto& mnist = *c.model("infless/mnist").operators;
  const auto& textcnn = *c.model("infless/textcnn-69").operators;
  ASSERT_EQ(mnist.table_ms.size(), textcnn.table_ms.size());
  for (const auto& [key, ms_value] : textcnn.table_ms) {
    const auto [t, g, b] = key;
    EXPECT_EQ(mnist.cop_ms(b, t, g, false).has_value(), textcnn.cop_ms(b, t, g, false).has_value());
  }
  EXPECT_DOUBLE_EQ(c.model("infless/bert-v1").gflops->value, 22.2);
}

// --- strict validation -------------------------------------------------------------------

std::string load_error(const std::string& model_json) {
  ModelCatalog c;
  std::ifstream in(testing::data_dir() + "/gpus.json");
  std::stringstream s;
  s << in.rdbuf();
  c.add_gpu_file("gpus.json", s.str());
  try {
    c.add_model_file("bad.json", model_json);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(loaded)";
}

const char* kGood = R"({"family": "t", "models": {"m": {"gpu": {
  "reference_gpu": "A100-40GB",
  "xi1_s": {"value": 0.001, "source": "test"},
  "xi2_s": {"value": 0.002, "assumption": "test"}}}}})";

TEST(ModelCatalog, AcceptsAWellFormedFile) {
  EXPECT_EQ(load_error(kGood), "(loaded)");
}

TEST(ModelCatalog, RejectsBareNumbersAndMissingProvenance) {
  EXPECT_EQ(load_error(R"({"family": "t", "models": {"m": {"gpu": {
      "reference_gpu": "A100-40GB", "xi1_s": 0.001,
      "xi2_s": {"value": 0.002, "source": "x"}}}}})")
                .rfind("bad.json: /models/m/gpu/xi1_s: expected a quantity object", 0),
            0u);
  EXPECT_EQ(load_error(R"({"family": "t", "models": {"m": {"gpu": {
      "reference_gpu": "A100-40GB", "xi1_s": {"value": 0.001},
      "xi2_s": {"value": 0.002, "source": "x"}}}}})"),
            "bad.json: /models/m/gpu/xi1_s: quantity has neither a non-empty \"source\" nor an "
            "\"assumption\"");
}

TEST(ModelCatalog, RejectsUnknownKeysAndWrongTypes) {
  EXPECT_EQ(load_error(R"({"family": "t", "models": {"m": {"gpu": {
      "reference_gpu": "A100-40GB", "xi1_s": {"value": 0.001, "source": "x"},
      "xi2_s": {"value": 0.002, "source": "x"}, "fbrr": {"value": 1, "source": "x"}}}}})"),
            "bad.json: /models/m/gpu/fbrr: unknown key");
  EXPECT_EQ(load_error(R"({"family": "t", "models": {"m": {"gpu": {
      "reference_gpu": "A100-40GB", "xi1_s": {"value": "fast", "source": "x"},
      "xi2_s": {"value": 0.002, "source": "x"}}}}})"),
            "bad.json: /models/m/gpu/xi1_s/value: expected a number, found string \"fast\"");
  EXPECT_EQ(load_error(R"({"family": "t", "models": {"m": {"gpu": {
      "reference_gpu": "V100", "xi1_s": {"value": 1, "source": "x"},
      "xi2_s": {"value": 0.002, "source": "x"}}}}})"),
            "bad.json: /models/m/gpu/reference_gpu: unknown GPU type 'V100' (known: A10, "
            "A100-40GB, H100-80GB, RTX-2080Ti)");
  EXPECT_EQ(load_error(R"({"family": "t", "models": {"m": {"gpu": {
      "reference_gpu": "A100-40GB", "xi1_s": {"value": 1, "source": "x", "note": "y"},
      "xi2_s": {"value": 0.002, "source": "x"}}}}})"),
            "bad.json: /models/m/gpu/xi1_s/note: unknown key in a quantity (expected value, "
            "unit, source, assumption)");
  EXPECT_EQ(load_error(R"({"family": "t", "models": {}, "extra": 1})"),
            "bad.json: /extra: unknown key");
  EXPECT_EQ(load_error("{\"family\": ").rfind("bad.json: line 1, column 12: invalid JSON", 0), 0u);
}

TEST(ModelCatalog, RejectsOperatorSharesThatDoNotSumToOne) {
  const std::string err = load_error(R"({"family": "t", "models": {"m": {"operators": {
      "infeasible_at_or_above_ms": {"value": 20000, "source": "x"},
      "latency_table": {"value": [[2, 0, 1, 10.0]], "source": "x"},
      "dag": {"value": [{"name": "a", "share": 0.5}, {"name": "b", "share": 0.3, "after": ["a"]}],
              "source": "x"},
      "prediction_offset": {"value": 0.1, "source": "x"}}}}})");
  EXPECT_EQ(err.rfind("bad.json: /models/m/operators/dag/value: operator shares along the "
                      "critical path sum to 0.8, expected 1",
                      0),
            0u)
      << err;
}

TEST(ModelCatalog, LoadNamesMissingDirectoryAndLookupSuggests) {
  EXPECT_THROW((void)ModelCatalog::load("/nonexistent/dir"), std::runtime_error);
  try {
    (void)repo_catalog().model("resnet-50");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown model 'resnet-50' (did you mean: infless/resnet-50, protean/resnet-50?)");
  }
  // A typo of a full name: the nearest full name, in the same family.
  for (const std::string family : {"protean", "infless"}) {
    try {
      (void)repo_catalog().model(family + "/resnet50");
      FAIL();
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "unknown model '" + family +
                                           "/resnet50' (did you mean: " + family + "/resnet-50?)");
    }
  }
}

TEST(ModelCatalog, ListAndModelInfoRender) {
  const auto& c = repo_catalog();
  std::ostringstream list;
  render_model_list(c, list);
  EXPECT_NE(list.str().find("protean/dpn-92"), std::string::npos);
  EXPECT_NE(list.str().find("(43 models;"), std::string::npos);
  for (const auto& name : c.names()) {
    std::ostringstream info;
    EXPECT_NO_THROW(render_model_info(c, name, info)) << name;
    EXPECT_NE(info.str().find(name), std::string::npos);
  }
  std::ostringstream info;
  render_model_info(c, "protean/resnet-50", info);
  EXPECT_NE(info.str().find("A100-40GB 1g.5gb"), std::string::npos) << info.str();
  EXPECT_NE(info.str().find("Protean Fig. 3"), std::string::npos);
  std::ostringstream hb;
  render_model_info(c, "harmonybatch/vgg19", hb);
  EXPECT_NE(hb.str().find("eq. 3 avg / eq. 4 max"), std::string::npos);
  // VGG-19 b = 8 at m = 2: 186.62 / 191.55 ms (see LatencyFormulas.CgpuAverageAndMax).
  EXPECT_NE(hb.str().find("186.62 / 191.55"), std::string::npos) << hb.str();
}

}  // namespace
}  // namespace sim::gpu
