// `dcsim model-info --sharing`: the per-model sharing table and its copy in docs/gpu-models.md.

#include "sim/gpu_models/sharing_table.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace sim::gpu {
namespace {

std::string render(const ModelCatalog& catalog) {
  std::ostringstream out;
  render_sharing_table(catalog, "protean", "A100-40GB", out);
  return out.str();
}

TEST(SharingTable, ResNet50RowHandComputed) {
  const auto catalog = ModelCatalog::load(SIM_SOURCE_DIR "/data/models");
  const std::string table = render(catalog);
  // Exclusive: 128 / 0.110 s = 1164 req/s. Two co-runners: c = 0.95 each (5% intercept), so
  // s = 1.9 and r = 1 / (1.9 (1 + kappa 0.48)); with kappa = 1.8678 the batch takes
  // 110 ms x 1.9 x 1.8965 = 396 ms and the pair serves 2 x 128 / 0.396 = 646 req/s, less than
  // the exclusive GPU. On the 4g: 110 ms x RDF 1.4125 = 155 ms, 128 / 0.155 = 824 req/s.
  EXPECT_NE(table.find("| protean/resnet-50 | 128 | 0.95 | 0.48 | 110 / 1164 | 396 / 646 |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| 155 / 824 |"), std::string::npos) << table;
}

TEST(SharingTable, DocsCopyIsUpToDate) {
  const auto catalog = ModelCatalog::load(SIM_SOURCE_DIR "/data/models");
  std::ifstream in(SIM_SOURCE_DIR "/docs/gpu-models.md");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string doc = buf.str();
  const std::string begin = "<!-- BEGIN dcsim model-info --sharing protean A100-40GB -->\n";
  const std::string end = "<!-- END dcsim model-info --sharing protean A100-40GB -->";
  const auto b = doc.find(begin);
  const auto e = doc.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), render(catalog))
      << "docs/gpu-models.md is stale: paste the output of `dcsim model-info --sharing protean "
         "A100-40GB` between its markers";
}

}  // namespace
}  // namespace sim::gpu
